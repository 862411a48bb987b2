#!/bin/sh
# timed.sh — runs one test (the rest of the command line, as the automake
# test driver gives it: LOG_COMPILER and SH_LOG_COMPILER in Makefile.am)
# and ends its log with the time it took:
#
#   test-duration: 12.34 s (cpu 3.21 s)
#
# cpu is the user + system time of the test and everything it waited for.
# ./quickstart check prints the ten slowest tests from these lines.  The
# test's exit status is passed on unchanged (77 is a skip, 99 a hard error).

now() { # nanoseconds since the epoch, or whole seconds where date has no %N
	t=$(date +%s%N)
	case $t in
	*[!0-9]*) t=$(date +%s)000000000 ;;
	esac
	echo "$t"
}

start=$(now)
"$@"
st=$?
end=$(now)
# The children's user and system time, from this shell's own /proc entry
# (read by the shell itself: `times` in a pipe would run in a subshell,
# which has no children).  Where there is no /proc, cpu is "?".
cpu=?
if read -r stat 2>/dev/null </proc/$$/stat; then
	set -- ${stat##*) }
	shift 13
	cpu=$(awk -v t=$(( $1 + $2 )) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }')
fi
ms=$(( (end - start) / 10000000 ))
printf 'test-duration: %d.%02d s (cpu %s s)\n' $((ms / 100)) $((ms % 100)) "$cpu"
exit "$st"
