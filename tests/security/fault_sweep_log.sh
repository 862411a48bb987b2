#!/bin/sh
# fault_sweep_log.sh — a part of tests/security/fault_sweep.sh (which says
# what every sweep proves): the requests that change a session's state,
# mode set, preset select and session new.
FAULT_PART=log
. "${top_srcdir:?run by make check}/tests/security/fault_sweep.sh"
