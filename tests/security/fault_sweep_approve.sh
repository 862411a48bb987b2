#!/bin/sh
# fault_sweep_approve.sh — a part of tests/security/fault_sweep.sh (which
# says what every sweep proves): approve, of a request a rule allows and of
# one no rule allows.
FAULT_PART=approve
. "${top_srcdir:?run by make check}/tests/security/fault_sweep.sh"
