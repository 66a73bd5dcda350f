import sys
case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
