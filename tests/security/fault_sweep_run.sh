#!/bin/sh
# fault_sweep_run.sh — a part of tests/security/fault_sweep.sh (which says
# what every sweep proves): run (bwrap, workspace-write), and ENOSPC / EIO
# on the session log append.
FAULT_PART=run
. "${top_srcdir:?run by make check}/tests/security/fault_sweep.sh"
