"""What a hoisted closure takes from the function around it: the attributes it reads of a name, where it reads
nothing else of it (so only they are pickled for the workers), else the name whole, with a note saying so.
(``fix_closure_reads_attributes.py`` shows it at run time: the object itself refuses to be pickled.)"""

from __future__ import annotations

import textwrap

from winspawn_lint import fix_text
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))

TEMPLATE = textwrap.dedent('''\
    import multiprocessing


    def main(args, vae):
        def collate(batch):
            BODY

        with multiprocessing.Pool(2) as pool:
            print(pool.map(collate, [1, 2]))


    if __name__ == "__main__":
        multiprocessing.freeze_support()
        main(None, None)
    ''')


def fixed(body: str):
    return fix_text(TEMPLATE.replace("BODY", body), "train.py", ALL, unsafe=True)


def test_the_attribute_chains_read_are_what_the_partial_binds():
    outcome = fixed("return [b * vae.config.scaling_factor + args.noise for b in batch]")
    # (in the order the function first reads each name)
    assert "def _collate(scaling_factor, noise, batch):\n" in outcome.text
    assert "    return [b * scaling_factor + noise for b in batch]\n" in outcome.text
    assert "collate = functools.partial(\n        _collate, vae.config.scaling_factor, args.noise)\n" in outcome.text
    assert "pickled whole" not in (outcome.note or "")


def test_a_method_call_needs_the_object_and_the_note_says_it_is_pickled():
    outcome = fixed("return [vae.encode(b) * args.scale for b in batch]")
    assert "def _collate(vae, scale, batch):\n" in outcome.text
    assert "functools.partial(_collate, vae, args.scale)" in outcome.text
    assert "WSP202 fixed: `vae` goes to the workers with the function, pickled whole" in outcome.note


def test_a_method_of_an_attribute_needs_only_that_attribute():
    outcome = fixed("return [vae.decoder.forward(b) for b in batch]")
    assert "def _collate(decoder, batch):\n    return [decoder.forward(b) for b in batch]\n" in outcome.text
    assert "functools.partial(_collate, vae.decoder)" in outcome.text


def test_a_name_passed_or_assigned_through_goes_whole():
    outcome = fixed("vae.calls = len(batch)\n        return [args for b in batch]")
    assert "functools.partial(_collate, vae, args)" in outcome.text


def test_a_parameter_name_that_clashes_is_spelled_in_full():
    outcome = fixed("scale = 2\n        return [b * scale * args.scale for b in batch]")
    assert "def _collate(args_scale, batch):\n" in outcome.text
    assert "return [b * scale * args_scale for b in batch]" in outcome.text


def test_a_one_row_lambda_takes_attributes_too():
    text = TEMPLATE.replace("def collate(batch):\n        BODY", "collate = lambda b: b * vae.config.scale")
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert "def _collate(scale, b):\n    return b * scale\n" in outcome.text
    assert "collate = functools.partial(_collate, vae.config.scale)" in outcome.text
