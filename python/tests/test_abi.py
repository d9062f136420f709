"""python/tests/test_abi.py: tilepipe.abi's ctypes structs laid out as the
C compiler lays out the headers' structs: each struct's size and each
field's offset, printed by a C program built with the build's compiler and
flags (TP_TEST_CC, TP_TEST_CPPFLAGS, TP_TEST_CFLAGS: make check sets them;
the test skips without them)."""
import ctypes
import os
import shlex
import subprocess

import pytest

from tilepipe import abi

STRUCTS = {"tp_tensor": abi.Tensor, "tp_gemm_desc": abi.GemmDesc,
           "tp_plugin_info": abi.PluginInfo, "tp_scale_map": abi.ScaleMap,
           "tp_operand_rounding": abi.OperandRounding,
           "tp_problem_options": abi.ProblemOptions, "tp_problem": abi.Problem,
           "tp_link_target": abi.LinkTarget, "tp_warm_options": abi.WarmOptions,
           "tp_warm_result": abi.WarmResult}


def test_structs_match_the_headers(tmp_path):
    cc = os.environ.get("TP_TEST_CC")
    if not cc:
        pytest.skip("no TP_TEST_CC: run by make check")
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <tilepipe/tilepipe.h>",
             "int main(void) {"]
    for cname, struct in STRUCTS.items():
        lines.append(f'  printf("{cname} %zu\\n", sizeof({cname}));')
        for field, _ in struct._fields_:
            lines.append(f'  printf("{cname}.{field} %zu\\n", offsetof({cname}, {field}));')
    lines += ["  return 0;", "}"]
    (tmp_path / "layout.c").write_text("\n".join(lines) + "\n")
    flags = shlex.split(os.environ.get("TP_TEST_CPPFLAGS", "")) + \
        [f for f in shlex.split(os.environ.get("TP_TEST_CFLAGS", "")) if not f.startswith("-fsanitize")]
    subprocess.run(shlex.split(cc) + flags + [str(tmp_path / "layout.c"), "-o",
                   str(tmp_path / "layout")], check=True)
    got = dict(line.split() for line in
               subprocess.run([str(tmp_path / "layout")], check=True, capture_output=True,
                              text=True).stdout.splitlines())
    want = {}
    for cname, struct in STRUCTS.items():
        want[cname] = str(ctypes.sizeof(struct))
        for field, _ in struct._fields_:
            want[f"{cname}.{field}"] = str(getattr(struct, field).offset)
    assert got == want
