"""Local files and folders given to ``mitra ingest files`` and ``ingest pdf``: what is read,
what is left out on purpose, and what is refused.

Nothing outside what was given is read. An admin ingesting a group's shared folder would
otherwise publish whatever a member links there (``notes.txt -> /etc/passwd``, a key):

* a symbolic link is followed only to a file or folder inside the folder it was found in
  (the folder given, for what a walk finds; its own folder, for a file named on the
  command line); a link out of it, a link that loops and a link to nothing are refused,
  each in one line;
* a link to a folder is never walked: inside the folder given, its files are walked where
  they are, once; a link to a file that is read under its own name is left out;
* a hard link is a second name of the same file: a file whose other names are not all in
  the folder is refused (one may lie outside it), and of names all inside it the first
  is read and the others are left out;
* only regular files are opened (a named pipe would block the run);
* hidden files and folders, and the ``X_files`` folder a browser saves beside ``X.html``,
  are no documents and are left out.

What is left out is counted by kind (``left_out`` of the summary); what is refused is a
failed row with its reason. A file is stamped (``file_stamp``) when the walk finds it and
again when it is admitted, and is refused if it changed since: before it is read (swapped
for a link out of the folder after the walk, say), or before its version is written (it
was read while it was being written).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ingest.extract.base import ExtractionError
from mitra.core.jsonl import InputError


class ChangedWhileReadError(ExtractionError):
    """The file changed between its admission and its indexing."""


# What is left out on purpose, by kind (the summary's ``left_out``).
HIDDEN, RESOURCES, LINKED, SAME_FILE = ("hidden", "saved page resources", "links to what is read already",
                                        "other names of a file read already")


@dataclass
class Intake:
    """The files to read, in order; what was left out, by kind; and (path, reason) for
    each thing refused."""

    files: list[Path] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=lambda: {HIDDEN: 0, RESOURCES: 0})
    refused: list[tuple[str, str]] = field(default_factory=list)
    stamps: dict[Path, tuple[int, ...]] = field(default_factory=dict)  # each file as the walk found it

    def leave_out(self, kind: str, n: int = 1) -> None:
        self.left_out[kind] = self.left_out.get(kind, 0) + n

    def read(self, path: Path) -> None:
        """``path`` is to be read, as it is now: a file swapped (for a link out, say) before
        it is read is refused then (``check_unchanged``)."""
        self.files.append(path)
        if os.path.lexists(path):
            self.stamps[path] = file_stamp(path)


def file_stamp(path: Path) -> tuple[int, ...]:
    """What changes when a file is written, replaced or swapped for a link: the link's and
    the file's identity, size and times."""
    link, target = os.lstat(path), os.stat(path)
    return (link.st_ino, link.st_ctime_ns, target.st_dev, target.st_ino, target.st_size, target.st_mtime_ns,
            target.st_ctime_ns)


def check_unchanged(path: Path, stamp: tuple[int, ...] | None) -> None:
    """Raise ``ChangedWhileReadError`` when the file is not as it was when stamped."""
    try:
        same = stamp is None or file_stamp(path) == stamp
    except OSError:
        same = False
    if not same:
        raise ChangedWhileReadError(path, "the file changed while it was read (still being written, or replaced): "
                                          "not indexed; run again once it is complete")


def _inside(target: Path, folder: Path) -> bool:
    return target == folder or folder in target.parents


def _target(path: Path, intake: Intake) -> Path | None:
    """Where the link ``path`` leads, or None (refused) when it loops or leads nowhere."""
    try:
        return Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:
        intake.refused.append((str(path), f"a link to {os.readlink(path)}, which does not exist: not followed"))
    except OSError as error:
        why = "a link that loops back on itself" if error.errno == errno.ELOOP else f"a link that cannot be followed " \
                                                                                  f"({error.strerror})"
        intake.refused.append((str(path), f"{why}: not followed"))
    return None


def _refuse_outside(path: Path, target: Path, folder: Path, intake: Intake, hint: str = "") -> None:
    kind = "folder" if target.is_dir() else "file"
    intake.refused.append((str(path), f"a link to the {kind} {target}, outside {folder}: not followed{hint}"))


def pdf_files(paths: list[Path]) -> Intake:
    """``ingest pdf``: each folder replaced by the PDFs in it (not walked further), under
    the same rules of links as any file."""
    intake = Intake(left_out={})
    for path in paths:
        if not (path.is_dir() and not path.is_symlink()):
            _given_file(path, intake, walk=False)
            continue
        found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".pdf" and not p.is_dir())
        if not found:
            raise InputError(f"{path}: is a directory with no PDF files in it")
        _read_folder_files(found, path.resolve(), intake, names_in=(path, False))
    return intake


def walked_files(paths: list[Path]) -> Intake:
    """``ingest files``: each folder replaced by the files under it, in name order; files
    as given (a missing one is reported with the other failures)."""
    intake = Intake()
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            _walk(path, intake)
        else:
            _given_file(path, intake, walk=True)
    return intake


def _given_file(path: Path, intake: Intake, *, walk: bool) -> None:
    """A path named on the command line that is not a folder: a link must stay in its folder."""
    folder = path.parent.resolve()
    if not path.is_symlink():
        _read_folder_files([path], folder, intake, names_in=(path.parent, False))
        return
    target = _target(path, intake)
    if target is None:
        return
    if not _inside(target, folder):
        _refuse_outside(path, target, folder, intake, f" (name {target} itself to ingest it)")
    elif target.is_dir() and walk:
        _walk(target, intake)
    elif target.is_dir():
        intake.refused.append((str(path), "a link to a folder: name the folder itself"))
    else:
        intake.read(path)


def _walk(folder: Path, intake: Intake) -> None:
    root = folder.resolve()
    found: list[Path] = []
    for where, folders, names in os.walk(folder):
        here = Path(where)
        intake.leave_out(HIDDEN, sum(name.startswith(".") for name in (*folders, *names)))
        resources = {f for f in folders if f.endswith("_files") and {f"{f[:-6]}.html", f"{f[:-6]}.htm"} & {*names}}
        intake.leave_out(RESOURCES, sum(len(inner) for f in resources for _, _, inner in os.walk(here / f)))
        kept = []
        for name in sorted(f for f in folders if not f.startswith(".") and f not in resources):
            if not (here / name).is_symlink():
                kept.append(name)
                continue
            target = _target(here / name, intake)
            if target is None:
                continue
            if _inside(target, root):
                intake.leave_out(LINKED)  # its files are walked where they are
            else:
                _refuse_outside(here / name, target, root, intake)
        folders[:] = kept
        found += [here / name for name in sorted(names) if not name.startswith(".")]
    if not found and not intake.refused:
        raise InputError(f"{folder}: is a folder with no files in it")
    _read_folder_files(found, root, intake, names_in=(folder, True))


def _read_folder_files(paths: list[Path], root: Path, intake: Intake,
                       names_in: tuple[Path, bool] | None = None) -> None:
    """``paths`` found in ``root``, in order: links resolved under the rules, only regular
    files kept, each file read under one name. ``names_in``: where (and whether below it)
    a hard-linked file's other names may be."""
    chosen: dict[tuple[int, int], Path] = {}  # each file read, by identity, under its first plain name
    links: list[tuple[Path, Path]] = []
    for path in paths:
        if not os.path.lexists(path):
            chosen[(-1, len(chosen))] = path  # reported as missing with the other failures
        elif path.is_symlink():
            target = _target(path, intake)
            if target is None:
                continue
            if not _inside(target, root):
                _refuse_outside(path, target, root, intake)
            elif not target.is_file():
                intake.refused.append((str(path), "a link to something that is not a regular file: not read"))
            else:
                links.append((path, target))
        elif not stat.S_ISREG((info := path.lstat()).st_mode):
            intake.refused.append((str(path), "not a regular file (a named pipe, socket or device): not read"))
        elif (info.st_dev, info.st_ino) in chosen:
            intake.leave_out(SAME_FILE)
        else:
            chosen[(info.st_dev, info.st_ino)] = path
    for path, target in links:  # a link is read only where its file is not read under its own name
        info = target.stat()
        if (info.st_dev, info.st_ino) in chosen:
            intake.leave_out(LINKED)
        else:
            chosen[(info.st_dev, info.st_ino)] = path
    names = _names_in(*names_in, chosen) if names_in else {}
    position = {path: i for i, path in enumerate(paths)}
    for key, path in sorted(chosen.items(), key=lambda item: position[item[1]]):
        many = path.exists() and not path.is_symlink() and path.lstat().st_nlink > 1
        if many and names.get(key, 1) < path.lstat().st_nlink:
            intake.refused.append((str(path), f"a hard link: the file has {path.lstat().st_nlink} names and not all "
                                              f"of them are in {root}, so it may be a file from elsewhere: not read"))
            continue
        intake.read(path)


def _names_in(folder: Path, below: bool, files: dict[tuple[int, int], Path]) -> dict[tuple[int, int], int]:
    """How many names each of ``files`` with more than one has in ``folder`` (and below it)."""
    wanted = {key for key, path in files.items()
              if path.exists() and not path.is_symlink() and path.lstat().st_nlink > 1}
    counts: dict[tuple[int, int], int] = {}
    if not wanted:
        return counts
    for where, _, names in os.walk(folder):
        for name in names:
            info = os.lstat(os.path.join(where, name))
            if (info.st_dev, info.st_ino) in wanted:
                counts[(info.st_dev, info.st_ino)] = counts.get((info.st_dev, info.st_ino), 0) + 1
        if not below:
            break
    return counts
