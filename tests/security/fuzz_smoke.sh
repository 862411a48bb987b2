#!/bin/sh
# fuzz_smoke.sh — every fuzz target runs 2000 inputs from its committed
# seed corpus under ASan+UBSan without a finding (make check-security).
if [ ! -x "$top_builddir/fuzz/fuzz_config" ]; then
	echo "SKIP: the fuzz targets are not built: configure found no clang that links libFuzzer (install clang libclang-rt-14-dev, re-run configure, make fuzz)" >&2
	exit 77
fi
exec "$top_srcdir/fuzz/run.sh" "$top_builddir" "$top_srcdir" -runs=2000
