"""cases:
  method_and_files  -p 2: consumers get self.log (Aligner with open files), producer gets the files (hazard, WSP301+WSP302)
  files_arg         -p 2: consumers get print; the producer still gets the open files        (hazard, WSP302)
  fixed             -p 2: consumers get print, the producer gets lists of lines              (safe twin)
  serial            default num_processes=1: no process started (batch_align.py, unguarded)   (safe)
"""
import os
import sys
import tempfile

from align import Aligner

d = tempfile.mkdtemp()
for name, lines in (("src.txt", ["a", "b", "c"]), ("tgt.txt", ["x", "y", "z"])):
    with open(os.path.join(d, name), "w") as f:
        f.write("\n".join(lines))
case = sys.argv[1]
opts = {"srcfile": os.path.join(d, "src.txt"), "targetfile": os.path.join(d, "tgt.txt")}
if case == "serial":
    Aligner(opts).mainloop()          # module level, as batch_align.py: fine while serial
if __name__ == "__main__" and case != "serial":
    opts["num_processes"] = 2
    a = Aligner(opts, log_style="method" if case == "method_and_files" else "print")
    a.mainloop(producer_args="lists" if case == "fixed" else "files")
