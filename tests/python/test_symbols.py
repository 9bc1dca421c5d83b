"""gb.introspect's binary readers on glassbox's own libraries: symbols, ELF facts, DWARF units,
registrations found in a binary, size totals; a stripped copy and a file that is not ELF."""

import os
import shutil
import subprocess

import pytest

import glassbox as gb

pytest.importorskip("glassbox._introspect")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("GLASSBOX_BUILD_DIR", os.path.join(REPO, "build", "dev"))
CORE = os.path.join(BUILD, "lib", "libglassbox_core.so")
TEST_LIBRARY = os.environ.get("GLASSBOX_TEST_LIBRARY", os.path.join(BUILD, "lib", "libglassbox_dlopen_test_library.so"))


def line_of(path, text):
    with open(os.path.join(REPO, path)) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError(f"{text!r} not in {path}")


def test_symbols_with_lines():
    found = gb.introspect.symbols(CORE, lines=True, grep=r"^glassbox::Library::def\(.*location\)$")
    assert len(found) == 1
    s = found[0]
    assert s["name"].startswith("_ZN8glassbox7Library3defE")
    assert (s["type"], s["binding"], s["section"], s["nm"], s["table"]) == ("func", "global", ".text", "T", ".symtab")
    assert s["file"].endswith("/registry/library.cpp")
    assert s["line"] == line_of("registry/library.cpp", "Library& Library::def(")


def test_all_symbols_sorted_like_nm():
    found = gb.introspect.symbols(CORE)
    assert len(found) > 300
    defined = [s["address"] for s in found if s["nm"] not in "Uwv"]
    assert defined == sorted(defined)
    dynamic = gb.introspect.symbols(CORE, dynamic=True)
    assert {s["table"] for s in dynamic} == {".dynsym"}
    assert not any(s["name"].startswith("_ZL") for s in dynamic)  # static functions are not exported


def test_elf_info_and_compile_units():
    info = gb.introspect.elf_info(CORE)
    assert info["soname"] == "libglassbox_core.so" and info["type"] == "shared library"
    assert "libstdc++.so.6" in info["needed"] and len(info["build_id"]) == 40
    assert info["has_symtab"] and info["has_debug_info"]
    assert any(s["name"] == ".text" for s in info["sections"])
    units = gb.introspect.compile_units(CORE)
    assert units["status"] == "present"
    unit = next(u for u in units["units"] if u["name"].endswith("registry/library.cpp"))
    assert unit["version"] in (4, 5) and "GNU C++" in unit["producer"] and unit["line_rows"] > 0


def test_binary_registrations_of_the_test_library():
    found = gb.introspect.binary_registrations(TEST_LIBRARY)
    assert [(r["kind"], r["namespace"], r["dispatch_key"]) for r in found] == [
        ("GLASSBOX_LIBRARY", "t_dl", ""),
        ("GLASSBOX_LIBRARY_IMPL", "t_dl", "CPU"),
    ]
    source = "tests/cpp/registry/dlopen_test_library.cpp"
    assert found[0]["file"].endswith(source) and found[0]["line"] == line_of(source, "GLASSBOX_LIBRARY(t_dl, m)")
    assert found[1]["line"] == line_of(source, "GLASSBOX_LIBRARY_IMPL(t_dl, CPU, m)")
    assert found[0]["library"] == TEST_LIBRARY
    # Each block has code at the line of its def/impl call.
    assert line_of(source, 'm.def("triple') in found[0]["code_lines"]
    assert line_of(source, 'm.impl("triple"') in found[1]["code_lines"]


def test_symbol_sizes():
    sections = gb.introspect.symbol_sizes(CORE, by="section")
    text = next(s for s in sections if s["name"] == ".text")
    assert text["vm_size"] > 0 and text["symbols"] > 0 and text["symbol_bytes"] <= text["vm_size"]
    sources = gb.introspect.symbol_sizes(CORE, by="source")
    assert any(s["name"].endswith("/registry/library.cpp") for s in sources)
    with pytest.raises(gb.introspect.IntrospectError, match="by must be"):
        gb.introspect.symbol_sizes(CORE, by="colour")


def test_stripped_copy_warns_that_lines_are_missing(tmp_path):
    objcopy = shutil.which("objcopy")
    if not objcopy:
        pytest.skip("objcopy is needed")
    stripped = tmp_path / "libstripped.so"
    subprocess.run([objcopy, "--strip-debug", CORE, str(stripped)], check=True)
    with pytest.warns(UserWarning, match="no DWARF line information"):
        found = gb.introspect.symbols(stripped, lines=True, grep="Library::def", debug_dirs=[str(tmp_path)])
    assert found and all(s["line"] == 0 and s["file"] == "" for s in found)
    assert gb.introspect.compile_units(stripped, debug_dirs=[str(tmp_path)])["status"] == "missing"


def test_bad_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a binary\n")
    with pytest.raises(gb.introspect.IntrospectError, match="notes.txt: not an ELF file"):
        gb.introspect.symbols(text)
    truncated = tmp_path / "half.so"
    with open(CORE, "rb") as f:
        truncated.write_bytes(f.read()[:5000])
    with pytest.raises(gb.introspect.IntrospectError, match="half.so: truncated ELF file"):
        gb.introspect.elf_info(truncated)
