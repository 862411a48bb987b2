/* test_text.c — hostile strings reach a terminal only as visible escapes:
 * no control byte, no C1, no text-reordering character and no invalid
 * UTF-8 survives warden_text_escape, and nothing is ever cut mid-escape. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "text.h"

static void expect(const char *in, const char *want)
{
	char out[512];
	size_t n = warden_text_escape(in, 0, out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

/* 1 when s holds a byte a terminal could act on: a C0 control, DEL, or
 * a C1 control in its UTF-8 form (0xc2 0x80-0x9f). */
static int has_raw_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 1;
	return 0;
}

static void test_plain_text_and_utf8_pass_unchanged(void **state)
{
	(void)state;
	expect("", "");
	expect("warden: run: /srv/p/file.txt", "warden: run: /srv/p/file.txt");
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92");
}

static void test_c0_controls_and_del_are_escaped(void **state)
{
	(void)state;
	expect("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H");
	expect("a\nb\tc\rd", "a\\nb\\tc\\rd");
	expect("\a\b\f\v\x01\x1f\x7f", "\\x07\\x08\\x0c\\x0b\\x01\\x1f\\x7f");
	/* OSC 52: write to the clipboard; and a title change. */
	expect("\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07");
}

static void test_backslash_is_doubled_unless_kept(void **state)
{
	char out[64];

	(void)state;
	/* A literal "\x1b" typed by someone reads differently from an ESC. */
	expect("\\x1b", "\\\\x1b");
	warden_text_escape("{\"a\":\"\\u001b\"}", WARDEN_TEXT_KEEP_BACKSLASH, out, sizeof(out));
	assert_string_equal(out, "{\"a\":\"\\u001b\"}");
	warden_text_escape("x\x1b\\", WARDEN_TEXT_KEEP_BACKSLASH, out, sizeof(out));
	assert_string_equal(out, "x\\x1b\\");
}

static void test_c1_and_reordering_characters_are_escaped(void **state)
{
	(void)state;
	/* U+009B is CSI on a terminal that reads C1 in UTF-8. */
	expect("\xc2\x9b" "2J", "\\u{009b}2J");
	expect("\xc2\x80\xc2\x9f", "\\u{0080}\\u{009f}");
	/* Right-to-left override, isolates, zero width, separators, BOM. */
	expect("a\xe2\x80\xae" "b", "a\\u{202e}b");
	expect("\xe2\x81\xa6\xe2\x81\xa9", "\\u{2066}\\u{2069}");
	expect("\xe2\x80\x8b\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf",
	       "\\u{200b}\\u{2028}\\u{2029}\\u{feff}");
	/* Their neighbours are ordinary text. */
	expect("\xc2\xa0\xe2\x80\x90", "\xc2\xa0\xe2\x80\x90");
}

static void test_invalid_utf8_is_escaped_byte_by_byte(void **state)
{
	(void)state;
	expect("\xff\xfe", "\\xff\\xfe");
	/* Overlong forms: "/" and a NUL and an ESC in disguise. */
	expect("\xc0\xaf", "\\xc0\\xaf");
	expect("\xe0\x80\x9b", "\\xe0\\x80\\x9b");
	expect("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
	/* Surrogates, and beyond U+10FFFF. */
	expect("\xed\xa0\x80", "\\xed\\xa0\\x80");
	expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	/* A sequence cut short by the end, or by an ASCII byte. */
	expect("ab\xe2\x82", "ab\\xe2\\x82");
	expect("\xe2\x1b[2J", "\\xe2\\x1b[2J");
	/* A lone continuation byte that looks like C1 CSI. */
	expect("\x9b" "2J", "\\x9b2J");
}

static void test_truncation_never_cuts_an_escape_or_a_character(void **state)
{
	const char *in = "ab\x1b\xe2\x82\xac" "cd";
	char out[32];
	size_t cap, need, len;

	(void)state;
	need = warden_text_escape(in, 0, NULL, 0);
	assert_int_equal(need, strlen("ab\\x1b\xe2\x82\xac" "cd"));
	for (cap = 1; cap <= need + 1; cap++) {
		memset(out, 'Z', sizeof(out));
		assert_int_equal(warden_text_escape(in, 0, out, cap), need);
		len = strlen(out);
		assert_true(len < cap);
		/* Always a prefix that ends at a piece boundary. */
		assert_true(len == 0 || len == 1 || len == 2 || len == 6 ||
		            len == 9 || len == 10 || len == 11);
		assert_memory_equal(out, "ab\\x1b\xe2\x82\xac" "cd", len);
	}
	assert_int_equal(warden_text_escape(in, 0, out, 0), need);
}

static void test_every_byte_value_comes_out_printable(void **state)
{
	char in[3], out[64], *dup;
	int a, b;

	(void)state;
	for (a = 1; a < 256; a++) {
		for (b = 1; b < 256; b++) {
			in[0] = (char)a;
			in[1] = (char)b;
			in[2] = '\0';
			warden_text_escape(in, 0, out, sizeof(out));
			assert_false(has_raw_control(out));
			/* A byte that is not UTF-8 never comes out raw. */
			assert_true(a < 0x80 || (unsigned char)out[0] != a ||
			            (a >= 0xc2 && a <= 0xf4));
		}
	}
	dup = warden_text_escape_dup("\x1b" "x", 0);
	assert_non_null(dup);
	assert_string_equal(dup, "\\x1bx");
	free(dup);
	dup = warden_text_escape_dup(NULL, 0);
	assert_non_null(dup);
	assert_string_equal(dup, "");
	free(dup);
}

static void test_a_line_is_escaped_whole_and_ends_with_one_newline(void **state)
{
	static const char first[] = "warden: run: \\x1b[2J\\n\\u{009b}\n";
	char buf[8192], big[6000];
	FILE *f;
	size_t n, l = sizeof(first) - 1;

	(void)state;
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(warden_text_line(f, "warden: %s: %s", "run", "\x1b[2J\n\xc2\x9b"), 0);
	memset(big, 'a', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\x1b';
	big[sizeof(big) - 1] = '\0';
	/* Longer than the fixed buffers: still whole. */
	assert_int_equal(warden_text_line(f, "%s", big), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_memory_equal(buf, first, l);
	assert_int_equal(n, l + sizeof(big) - 2 + 4 + 1);
	assert_memory_equal(buf + l + sizeof(big) - 2, "\\x1b\n", 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_and_utf8_pass_unchanged),
		cmocka_unit_test(test_c0_controls_and_del_are_escaped),
		cmocka_unit_test(test_backslash_is_doubled_unless_kept),
		cmocka_unit_test(test_c1_and_reordering_characters_are_escaped),
		cmocka_unit_test(test_invalid_utf8_is_escaped_byte_by_byte),
		cmocka_unit_test(test_truncation_never_cuts_an_escape_or_a_character),
		cmocka_unit_test(test_every_byte_value_comes_out_printable),
		cmocka_unit_test(test_a_line_is_escaped_whole_and_ends_with_one_newline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
