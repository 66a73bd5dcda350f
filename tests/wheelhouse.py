"""Wheels of what the running interpreter has installed, for building test environments offline.

The packaging and pre-commit tests install winspawn-lint into fresh virtual
environments.  They may not download anything, and they must not borrow the
*base* interpreter's site-packages either (in an ordinary virtualenv the
dependencies live in the venv, not in the base).  So the dependencies that
this interpreter has are packed back into wheels -- files listed in each
distribution's RECORD, its own WHEEL tag -- and pip installs them with
``--no-index --find-links``.  A dependency that is not declared is not packed,
so an environment built this way lacks it, as a user's would.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
import zipfile
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Iterable

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.tags import sys_tags

_SKIPPED_METADATA = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


class NotInstalled(LookupError):
    """A requirement that this interpreter cannot supply."""


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(requirements: Iterable[str], exclude: Iterable[str] = ()) -> dict[str, metadata.Distribution]:
    """The installed distributions that *requirements* need, transitively, by normalised name.

    Markers are evaluated for this interpreter (the environments are built from it); an installed version
    that does not satisfy a requirement is reported like a missing one.
    """
    environment = default_environment()
    skip = {_normalise(name) for name in exclude}
    found: dict[str, metadata.Distribution] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    # (requirement, the extra of the requiring distribution it was listed under: "" for none)
    todo = [(Requirement(text), "") for text in requirements]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({**environment, "extra": extra}):
            continue
        name = _normalise(requirement.name)
        key = (name, frozenset(requirement.extras))
        if name in skip or key in seen:
            continue
        seen.add(key)
        try:
            dist = found.get(name) or metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            raise NotInstalled(f"{requirement} is needed but not installed in {sys.executable}") from None
        if not requirement.specifier.contains(dist.version, prereleases=True):
            raise NotInstalled(f"{requirement} is needed but {sys.executable} has {dist.version}")
        found[name] = dist
        for text in dist.requires or ():
            for wanted in ("", *requirement.extras):
                todo.append((Requirement(text), wanted))
    return found


def _wheel_tag(dist: metadata.Distribution) -> str:
    wheel = dist.read_text("WHEEL")
    tags = re.findall(r"^Tag:\s*(\S+)", wheel or "", re.M)
    if not tags:
        raise NotInstalled(f"{dist.metadata['Name']} was not installed from a wheel (no Tag in its WHEEL file)")
    # `py2.py3-none-any` is written as two Tag lines: name the file by one this interpreter accepts.
    supported = {str(tag) for tag in sys_tags()}
    return next((tag for tag in tags if tag in supported), tags[0])


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"sha256={digest}"


def pack(dist: metadata.Distribution, directory: Path) -> Path:
    """One installed distribution as a wheel in *directory* (files outside site-packages, e.g. console
    scripts, are left out: pip writes those again from the entry points)."""
    name, version = dist.metadata["Name"], dist.version
    files = dist.files
    if files is None:
        raise NotInstalled(f"{name} {version} has no RECORD: cannot tell its files")
    stem = f"{re.sub(r'[-_.]+', '_', name)}-{version}"
    target = directory / f"{stem}-{_wheel_tag(dist)}.whl"
    if target.exists():
        return target
    info_dir = None
    record: list[str] = []
    partial = target.with_suffix(f".{os.getpid()}.tmp")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as wheel:
        for file in files:
            path = PurePosixPath(str(file).replace(os.sep, "/"))
            if path.is_absolute() or ".." in path.parts or "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            if path.parts[0].endswith(".dist-info"):  # the distribution's own (not a vendored one's)
                info_dir = path.parts[0]
                if len(path.parts) == 2 and path.name in _SKIPPED_METADATA:
                    continue
            located = Path(dist.locate_file(file))
            if not located.is_file():
                continue
            data = located.read_bytes()
            wheel.writestr(str(path), data)
            record.append(f"{path},{_record_hash(data)},{len(data)}")
        if info_dir is None:
            raise NotInstalled(f"{name} {version}: no .dist-info directory among its files")
        record.append(f"{info_dir}/RECORD,,")
        wheel.writestr(f"{info_dir}/RECORD", "\n".join(record) + "\n")
    os.replace(partial, target)
    return target


def build(requirements: Iterable[str], directory: Path, exclude: Iterable[str] = ()) -> list[Path]:
    """Pack every installed distribution *requirements* need into *directory*; returns the wheels."""
    directory.mkdir(parents=True, exist_ok=True)
    return [pack(dist, directory) for dist in closure(requirements, exclude).values()]


def pip_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment in which pip ignores every configuration file and index (the wheelhouse is passed
    with ``--find-links`` or ``PIP_FIND_LINKS``)."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not k.startswith("PIP_") and k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env
