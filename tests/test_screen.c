/*
 * test_screen.c — host/screen.h: a command's output as a screen shows
 * it, from well-behaved colours and progress bars to hostile input.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "screen.h"

/* The screen text of s (its first n bytes; n 0: strlen) is want. */
static void shows(const char *s, size_t n, const char *want)
{
	size_t len = 0;
	char *got = warden_screen_text(s, n ? n : strlen(s), &len);

	assert_non_null(got);
	assert_int_equal(len, strlen(got));
	if (strcmp(got, want) != 0)
		fail_msg("screen text of \"%s\": \"%s\", want \"%s\"", s, got, want);
	free(got);
}

static void test_plain_text_and_utf8_are_kept(void **state)
{
	(void)state;
	shows("", 0, "");
	shows("hello\nworld", 0, "hello\nworld");
	shows("tab\there\n", 0, "tab\there\n");
	shows("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n", 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n");
	/* Bytes that are not UTF-8 are '?'. */
	shows("\xff\xfe ok", 0, "?? ok");
	shows("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80", 0, "?? ??? ????");
}

static void test_colours_and_cursor_moves_are_dropped(void **state)
{
	(void)state;
	shows("\x1b[1;31merror\x1b[0m: bad\n", 0, "error: bad\n");
	shows("\x1b[2J\x1b[H\x1b[?25lclear\x1b[?25h", 0, "clear");
	shows("\x1b[38;2;255;0;0mrgb\x1b[m", 0, "rgb");
	shows("a\x1b" "7b\x1b" "8c\x1b(Bd\x1b=e", 0, "abcde");
	/* The C1 CSI (U+009B) acts as ESC [. */
	shows("x\xc2\x9b" "31my", 0, "xy");
	/* Other C1 controls go, C0 controls but tab and newline go. */
	shows("a\xc2\x85" "b\x01\x07\x0b\x0c\x7f" "c", 0, "abc");
	shows("nul\0byte", 8, "nulbyte");
}

static void test_titles_links_and_strings_are_dropped(void **state)
{
	(void)state;
	shows("\x1b]0;a title\x07text", 0, "text");
	shows("\x1b]8;;https://example.com/\x1b\\link\x1b]8;;\x1b\\", 0, "link");
	shows("\x1bPq#0;2;0;0;0\x1b\\after", 0, "after");
	shows("\xc2\x9d" "0;t\xc2\x9c" "ok", 0, "ok");
	shows("\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\ok", 0, "ok");
	/* Unterminated: hides the rest of its line, no more. */
	shows("shown\x1b]0;hidden\nnext line\n", 0, "shown\nnext line\n");
}

static void test_carriage_returns_overwrite_as_on_a_screen(void **state)
{
	(void)state;
	shows("10%\r50%\r100%\n", 0, "100%\n");
	shows("abcdef\rxy\n", 0, "xycdef\n");
	shows("abc\r\n", 0, "abc\n");
	shows("line\r\nnext\r\n", 0, "line\nnext\n");
	shows("\rstart", 0, "start");
	shows("long line\rshort\rs\n", 0, "shortline\n");
	shows("\xc3\xa9\xc3\xa9\xc3\xa9\rab\n", 0, "ab\xc3\xa9\n");
	/* A progress bar drawn with colours. */
	shows("\x1b[32m[##  ]\x1b[0m\r\x1b[32m[####]\x1b[0m done\n", 0, "[####] done\n");
}

static void test_backspace_takes_back_a_character(void **state)
{
	(void)state;
	shows("ab\bc", 0, "ac");
	shows("\b\bx", 0, "x");
	shows("caf\xc3\xa9\b\be", 0, "cae");
	/* Overstrike bold, as man pages print it. */
	shows("B\bBo\bol\bld\bd", 0, "Bold");
}

static void test_cut_sequences_end_where_they_break(void **state)
{
	(void)state;
	shows("a\x1b[31", 0, "a");
	shows("a\x1b", 0, "a");
	shows("a\x1b[3\nb", 0, "a\nb");
	shows("a\x1b\nb", 0, "a\nb");
	shows("a\x1b[12;\xc3\xa9z", 0, "a\xc3\xa9z");
	shows("x\xc2", 0, "x?");
}

/* Hostile input of many shapes: the result is never longer than the
 * input, is valid UTF-8, holds no ESC, no NUL, no C1 control, no CR and
 * no C0 control but tab and newline. */
static void test_hostile_input_leaves_no_control(void **state)
{
	static const char *const parts[] = {
		"\x1b", "[", "]", "P", "\x07", "\\", "\r", "\n", "\b", "\t", "\xc2", "\x9b",
		"\x9c", "\x9d", "0;", "m", "A", "\xc3\xa9", "\xe2\x82", "\xf0\x9f\x98\x80",
		"\x00", "\x7f", "\xff", "31", ";", "?",
	};
	size_t n = 1 << 16, i, j, len;
	char *in = malloc(n), *got;
	unsigned seed = 12345;

	(void)state;
	assert_non_null(in);
	for (int round = 0; round < 200; round++) {
		for (i = 0; i < n;) {
			const char *p;
			size_t k;

			seed = seed * 1103515245u + 12345u;
			p = parts[(seed >> 16) % (sizeof(parts) / sizeof(parts[0]))];
			k = p[0] == '\0' ? 1 : strlen(p);
			for (j = 0; j < k && i < n; j++)
				in[i++] = p[j];
		}
		got = warden_screen_text(in, n, &len);
		assert_non_null(got);
		assert_true(len <= n);
		for (i = 0; i < len; i++) {
			unsigned char c = (unsigned char)got[i];

			/* Valid UTF-8: a lead byte and its continuations. */
			if (c >= 0x80) {
				size_t k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

				assert_true(c >= 0xc2 && c <= 0xf4 && i + k <= len);
				for (j = 1; j < k; j++)
					assert_true(((unsigned char)got[i + j] & 0xc0) == 0x80);
				if (c == 0xc2)
					assert_false((unsigned char)got[i + 1] <= 0x9f);
				i += k - 1;
				continue;
			}

			assert_false(c == 0x1b || c == '\r' || c == '\b' || c == 0x7f || c == 0);
			assert_false(c < 0x20 && c != '\t' && c != '\n');
		}
		free(got);
	}
	free(in);
}

static void test_long_lines_of_overwrites_take_linear_time(void **state)
{
	size_t n = 4 << 20, i, len;
	char *in = malloc(n), *got;
	clock_t t0 = clock();

	(void)state;
	assert_non_null(in);
	/* Half a line of two-byte characters, then "x\r" over and over:
	 * every carriage return over the whole line. */
	for (i = 0; i < n / 2; i += 2)
		memcpy(in + i, "\xc3\xa9", 2);
	for (; i + 1 < n; i += 2)
		memcpy(in + i, "x\r", 2);
	if (i < n)
		in[i] = 'y';
	got = warden_screen_text(in, n, &len);
	assert_non_null(got);
	assert_true(got[0] == 'x' || got[0] == 'y');
	assert_true(len < n / 2 + 2);
	free(got);
	/* Backspaces by the million. */
	memset(in, '\b', n);
	memcpy(in, "keep", 4);
	got = warden_screen_text(in, n, &len);
	assert_string_equal(got, "");
	free(got);
	free(in);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_and_utf8_are_kept),
		cmocka_unit_test(test_colours_and_cursor_moves_are_dropped),
		cmocka_unit_test(test_titles_links_and_strings_are_dropped),
		cmocka_unit_test(test_carriage_returns_overwrite_as_on_a_screen),
		cmocka_unit_test(test_backspace_takes_back_a_character),
		cmocka_unit_test(test_cut_sequences_end_where_they_break),
		cmocka_unit_test(test_hostile_input_leaves_no_control),
		cmocka_unit_test(test_long_lines_of_overwrites_take_linear_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
