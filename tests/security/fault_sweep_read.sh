#!/bin/sh
# fault_sweep_read.sh — a part of tests/security/fault_sweep.sh (which says
# what every sweep proves): the requests that change nothing, config check,
# session state and show, preset list, plugins, confine.
FAULT_PART=read
. "${top_srcdir:?run by make check}/tests/security/fault_sweep.sh"
