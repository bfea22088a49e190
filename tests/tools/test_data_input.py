#!/usr/bin/python3
"""Tests of `ldp simulate --data csv:` and `--data npy:` (docs/cli.md "Data"), run by CTest one case
at a time with Debian's /usr/bin/python3 (numpy writes the .npy files):

    test_data_input.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The same numbers must give the same devices' inputs whichever way they come in, so the checks
compare batch digests (SHA-256) of simulate runs at one seed: a CSV of the numbers written exactly
(Python's repr round-trips every double) against .npy files of every supported dtype, byte order,
memory order and format version. Hostile .npy headers and truncated files must fail at once (exit 2)
with a message naming the problem, within the memory contract (docs/security_model.md).
"""
import hashlib
import struct
import sys

import numpy as np

import test_cli as cli
from test_cli import check, fails, path, run, write

# Mechanisms of every input shape (options, reals per device): items, a scalar, vectors, kent's
# observations and winsorized-mean's samples all read rows of the same data files.
SHAPES = {
    "items": (["-m", "grr", "-d", "13"], 1),
    "scalar": (["-m", "laplace", "--range", "-2:6"], 1),
    "vector": (["-m", "vector-mean", "--dim", "6", "--radius", "2"], 6),
    "box": (["-m", "laplace-vector", "--dim", "4", "--range", "-1:1"], 4),
    "kent": (["-m", "kent", "--range", "-1:1", "--observations", "5"], 5),
    "winsorized": (["-m", "winsorized-mean", "--dim", "2", "--range", "-1:1", "--observations", "3", "--tau",
                    "0.5"], 6),
}
ROWS = 300


def digest(*simulate_args):
    """SHA-256 of the batch `ldp simulate ... --seed 5` writes."""
    run("simulate", "-e", "2", "--seed", "5", "--out", path("d.ldpb"), *simulate_args)
    with open(path("d.ldpb"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write_csv(name, rows):
    """Rows of numbers as CSV with a header line, each number exactly (repr of its double)."""
    rows = np.asarray(rows).reshape(len(rows), -1)
    lines = [",".join(f"c{j}" for j in range(rows.shape[1]))]
    lines += [",".join(repr(float(v)) for v in row) for row in rows]
    write(name, "\n".join(lines) + "\n")


def save(name, array, version=None):
    """An .npy file of `array` (numpy's writer), in a given format version if set."""
    with open(path(name), "wb") as f:
        if version is None:
            np.save(f, array)
        else:
            np.lib.format.write_array(f, array, version=version)


def raw_npy(name, header, data=b"", version=1, header_length=None):
    """An .npy file written by hand: magic, version, a header dict text (padded as numpy pads),
    the data bytes; header_length overrides the stated header length."""
    text = header.encode()
    prelude = 10 if version == 1 else 12
    text += b" " * ((-(prelude + len(text) + 1)) % 64) + b"\n"
    length = len(text) if header_length is None else header_length
    size = struct.pack("<H", length) if version == 1 else struct.pack("<I", length)
    write(name, b"\x93NUMPY" + bytes([version, 0]) + size + text + data)


def values_for(shape, rng):
    """ROWS rows of data for a shape: items in [0, 13), reals with many digits inside the ranges."""
    width = SHAPES[shape][1]
    if shape == "items":
        return rng.integers(0, 13, size=ROWS)
    rows = rng.uniform(-0.6, 0.6, size=(ROWS, width))
    return rows[:, 0] if width == 1 else rows


def case_npy_same_as_csv():
    """Every input shape: a .npy of the numbers (C and Fortran order, either byte order, versions
    1.0, 2.0 and 3.0, with and without --devices) gives the batch of the CSV of the same numbers."""
    rng = np.random.default_rng(20)
    for shape, (options, width) in SHAPES.items():
        values = values_for(shape, rng)
        write_csv("v.csv", values)
        want = digest(*options, "--data", f"csv:{path('v.csv')}")
        variants = {
            "c": (values, None),
            "fortran": (np.asfortranarray(values), None),
            "big-endian": (values.astype(values.dtype.newbyteorder(">")), None),
            "v2": (values, (2, 0)),
            "v3": (values, (3, 0)),
        }
        for variant, (array, version) in variants.items():
            save("v.npy", array, version)
            got = digest(*options, "--data", f"npy:{path('v.npy')}")
            check(got == want, f"{shape} {variant}: npy batch {got} differs from csv batch {want}")
        if width == 1:
            save("v.npy", values.reshape(-1, 1))
            check(digest(*options, "--data", f"npy:{path('v.npy')}") == want, f"{shape}: an (n, 1) array differs")
        if shape not in ("kent", "winsorized"):
            save("v.npy", values)
            subset = digest(*options, "--data", f"npy:{path('v.npy')}", "--devices", "100")
            check(subset == digest(*options, "--data", f"csv:{path('v.csv')}", "--devices", "100"),
                  f"{shape}: --devices 100 differs between npy and csv")
            check(subset != want, f"{shape}: --devices 100 gave the batch of all rows")


def case_npy_dtypes():
    """Every supported dtype (both byte orders where they differ) gives the CSV's batch for the
    same numbers; every other dtype is refused naming it."""
    items = np.arange(ROWS) * 7 % 13
    write_csv("items.csv", items)
    items_digest = digest(*SHAPES["items"][0], "--data", f"csv:{path('items.csv')}")
    reals = np.round(np.random.default_rng(1).uniform(-2, 6, size=ROWS) * 64) / 64  # exact in every float
    write_csv("reals.csv", reals)
    reals_digest = digest(*SHAPES["scalar"][0], "--data", f"csv:{path('reals.csv')}")
    for code in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8"):
        for order in ("<", ">"):
            dtype = np.dtype(order + code)
            save("i.npy", items.astype(dtype))
            got = digest(*SHAPES["items"][0], "--data", f"npy:{path('i.npy')}")
            check(got == items_digest, f"items as {dtype.str}: batch differs from the csv's")
            if code[0] == "f":
                save("r.npy", reals.astype(dtype))
                got = digest(*SHAPES["scalar"][0], "--data", f"npy:{path('r.npy')}")
                check(got == reals_digest, f"reals as {dtype.str}: batch differs from the csv's")
    # Refused dtypes name themselves.
    for array in (items.astype("<f2"), items.astype(bool), items.astype("<c16"), items.astype("<U3"),
                  np.zeros(ROWS, dtype=[("a", "<f8")]), items.astype("<M8[s]")):
        save("x.npy", array)
        fails("simulate", *SHAPES["items"][0], "-e", "1", "--seed", "1", "--out", path("x.ldpb"), "--data",
              f"npy:{path('x.npy')}", message=r"npy file .*x\.npy.*(dtype .* is not supported|structured dtype)")
    with open(path("o.npy"), "wb") as f:
        np.save(f, np.array([object()] * 3), allow_pickle=True)
    fails("simulate", *SHAPES["items"][0], "-e", "1", "--seed", "1", "--out", path("x.ldpb"), "--data",
          f"npy:{path('o.npy')}",
          message=r"dtype '\|O' is not supported")
    raw_npy("native.npy", "{'descr': '=f8', 'fortran_order': False, 'shape': (3,), }", bytes(24))
    fails("simulate", *SHAPES["scalar"][0], "-e", "1", "--seed", "1", "--out", path("x.ldpb"), "--data",
          f"npy:{path('native.npy')}", message=r"dtype '=f8' is not supported")


def hostile_npys():
    """(file name, expected message) of .npy files that lie or are malformed; each is for the
    vector shape (6 reals per device)."""
    good = "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 6), }"
    data = np.zeros((4, 6)).tobytes()
    cases = []

    def add(name, message, header=good, payload=data, **kwargs):
        raw_npy(name, header, payload, **kwargs)
        cases.append((name, message))

    add("short.npy", r"header states 24 element.*but 184 bytes of data follow", payload=data[:-8])
    add("empty-data.npy", r"header states 24 element.*but 0 bytes", payload=b"")
    add("long.npy", r"header states 24 element.*but 200 bytes", payload=data + bytes(8))
    add("huge.npy", r"header states 4611686018427387906 element", header=good.replace("(4, 6)", "(768614336404564651, 6)"))
    add("overflow.npy", r"more than 2\^64 elements", header=good.replace("(4, 6)", "(9223372036854775807, 6)"))
    add("dim-overflow.npy", r"above 2\^64", header=good.replace("(4, 6)", "(99999999999999999999, 6)"))
    add("three-d.npy", r"more than 2 dimensions", header=good.replace("(4, 6)", "(4, 2, 3)"))
    add("zero-d.npy", r"0-dimensional", header=good.replace("(4, 6)", "()"), payload=bytes(8))
    add("no-rows.npy", r"has no data rows", header=good.replace("(4, 6)", "(0, 6)"), payload=b"")
    add("columns.npy", r"has 4 column\(s\) per row, the mechanism needs 6", header=good.replace("(4, 6)", "(6, 4)"))
    add("negative.npy", r"non-negative integer", header=good.replace("(4, 6)", "(-4, 6)"))
    add("missing.npy", r"'descr', 'fortran_order' and 'shape' are required",
        header="{'fortran_order': False, 'shape': (4, 6), }")
    add("repeated.npy", r"unexpected or repeated key 'shape'",
        header=good.replace("}", "'shape': (4, 6), }"))
    add("unknown.npy", r"unexpected or repeated key 'extra'", header=good.replace("}", "'extra': 1, }"))
    add("order.npy", r"fortran_order must be True or False", header=good.replace("False", "0"))
    add("unclosed.npy", r"a quoted key or dtype expected", header=good.replace("}", ""))
    add("trailing.npy", r"text after the dictionary", header=good + " x")
    add("escape.npy", r"escapes or non-ASCII", header=good.replace("'<f8'", "'<f\\x38'"))
    add("long-header.npy", r"header of 70000 bytes is longer than 65536", version=2, header_length=70000)
    add("beyond.npy", r"ends inside its header", header_length=4000)
    add("version.npy", r"format version 4\.0 is not supported", version=4)
    write("magic.npy", b"\x93NUMPX\x01\x00" + bytes(200))
    cases.append(("magic.npy", r"not a \.npy file"))
    write("tiny.npy", b"\x93NUM")
    cases.append(("tiny.npy", r"not a \.npy file"))
    nan = np.zeros((4, 6))
    nan[2, 3] = np.nan
    add("nan.npy", r"row 3 column 4: nan is not a finite number", payload=nan.tobytes())
    inf = np.zeros((4, 6), dtype="<f4")
    inf[1, 0] = np.inf
    add("inf.npy", r"row 2 column 1: inf is not a finite number",
        header=good.replace("<f8", "<f4"), payload=inf.tobytes())
    return cases


def case_npy_hostile():
    """Lying, malformed and truncated .npy files fail (exit 2) with a message naming the problem,
    refused before their data are read: peak RSS stays within the tool's constant 64 MiB even for
    a header claiming 2^62 elements; /dev/zero and a missing file are refused at once."""
    vector = SHAPES["vector"][0]
    for name, message in hostile_npys():
        args = ["simulate", *vector, "-e", "1", "--seed", "1", "--out", path("x.ldpb"), "--data", f"npy:{path(name)}"]
        fails(*args, message=message)
        rss = cli.peak_rss_kib(*args, expect=2)
        check(rss <= 64 * 1024, f"{name}: peak RSS {rss} KiB above 64 MiB")
    common = ["simulate", *vector, "-e", "1", "--seed", "1", "--out", path("x.ldpb")]
    fails(*common, "--data", "npy:/dev/zero", message=r"npy file /dev/zero is not a \.npy file")
    fails(*common, "--data", f"npy:{path('none.npy')}", message=r"cannot open npy file")
    fails(*common, "--data", "npy:", message=r"--data npy: needs a file name")
    fails("simulate", *vector, "-e", "1", "--seed", "1", "--data", f"npy:{path('magic.npy')}", "--out",
          path("magic.npy"),
          message=r"--out .*magic\.npy is the same file as --data")
    save("few.npy", np.zeros((4, 6)))
    fails(*common, "--data", f"npy:{path('few.npy')}", "--devices", "5", message=r"--devices 5 but npy file .* only 4")
    save("items.npy", np.array([1, 2, 13, 4]))
    fails("simulate", *SHAPES["items"][0], "-e", "1", "--seed", "1", "--out", path("x.ldpb"), "--data",
          f"npy:{path('items.npy')}", message=r"items\.npy row 3: item 13 is not an integer in \[0, 13\)")
    # A file cut anywhere inside its data is refused naming the sizes.
    save("whole.npy", np.arange(24.0).reshape(4, 6) / 10)
    with open(path("whole.npy"), "rb") as f:
        whole = f.read()
    for cut in (1, 8, 100, len(whole) - 129):
        write("cut.npy", whole[:-cut])
        fails(*common, "--data", f"npy:{path('cut.npy')}", message=r"header states 24 element|ends inside its header")


def case_csv_numbers():
    """The CSV reader's numbers are strtod's: odd spellings strtod takes (sign, blanks and quotes,
    hex, '1.', '.5', CRLF, no final newline) give the batch of their plain spellings; what strtod
    refuses (an underflow or overflow, nan, inf, a subnormal) is still refused with the same message;
    lines that span the reader's 1 MiB reads are read whole."""
    scalar = ["-m", "laplace", "--range", "-2:20"]
    write("odd.csv", 'x\r\n+1.5\r\n  "2.25" \r\n0x10\r\n1.\r\n.5\r\n-0\r\n"-.75"\r\n00012e-1')
    write("plain.csv", "x\n1.5\n2.25\n16\n1\n0.5\n-0\n-0.75\n1.2\n")
    check(digest(*scalar, "--data", f"csv:{path('odd.csv')}") == digest(*scalar, "--data", f"csv:{path('plain.csv')}"),
          "odd spellings differ from plain ones")
    for bad in ("1e-400", "4.9e-324", "1e309", "nan", "inf", "1e", "0x", "1 2"):
        write("bad.csv", f"x\n1\n{bad}\n")
        fails("simulate", *scalar, "-e", "1", "--seed", "1", "--out", path("x.ldpb"), "--data",
              f"csv:{path('bad.csv')}", message=rf"bad\.csv line 3 column 1: '{bad}' is not a number")
    # Rows of 40,000 numbers (~780 KB a line): most lines span two reads of the buffer.
    rng = np.random.default_rng(3)
    values = rng.uniform(-1, 1, size=(12, 40000))
    write_csv("wide.csv", values)
    save("wide.npy", values)
    wide = ["-m", "laplace-vector", "--dim", "40000", "--range", "-1:1"]
    check(digest(*wide, "--data", f"csv:{path('wide.csv')}") == digest(*wide, "--data", f"npy:{path('wide.npy')}"),
          "lines across reads differ from the npy of the same numbers")
    # A too-short line is reported as such even when its fields are not numbers.
    write("short.csv", "a,b,c\n1,2,3\nx,y\n")
    fails("simulate", "-m", "laplace-vector", "-e", "1", "--dim", "3", "--range", "0:7", "--seed", "1", "--out",
          path("x.ldpb"), "--data", f"csv:{path('short.csv')}", message=r"line 3: needs 3 field\(s\) from column 1, has 2")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
