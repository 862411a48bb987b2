/* test_random.c — the random part of warden's names: exactly 2n
 * lower-case hex digits, nothing written past them, never the same twice,
 * and a grant id that the grant id check takes. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grant.h"
#include "random.h"

static int all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static void test_hex_is_2n_digits_and_writes_nothing_past_them(void **state)
{
	static const size_t sizes[] = { 0, 1, 8, 16, 63, 64, 65, 200 };
	char buf[2 * 200 + 1 + 16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];

		memset(buf, 'X', sizeof(buf));
		assert_int_equal(warden_random_hex(buf, n), 0);
		assert_int_equal(strlen(buf), 2 * n);
		assert_true(all_hex(buf, 2 * n));
		assert_int_equal(buf[2 * n + 1], 'X');
	}
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void test_a_thousand_names_are_all_different(void **state)
{
	enum { N = 1000 };
	char (*ids)[17] = calloc(N, sizeof(*ids));
	int i;

	(void)state;
	assert_non_null(ids);
	for (i = 0; i < N; i++)
		assert_int_equal(warden_random_hex(ids[i], 8), 0);
	qsort(ids, N, sizeof(*ids), cmp);
	for (i = 1; i < N; i++)
		assert_string_not_equal(ids[i - 1], ids[i]);
	free(ids);
}

static void test_bytes_are_not_all_one_value(void **state)
{
	unsigned char b[4096];
	int seen[256] = { 0 }, distinct = 0;
	size_t i;

	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(warden_random_bytes(b, sizeof(b)), 0);
	for (i = 0; i < sizeof(b); i++)
		if (!seen[b[i]]++)
			distinct++;
	/* 4096 uniform bytes miss a value with probability about 2e-5 each:
	 * well over 200 distinct values, never a constant fill. */
	assert_true(distinct > 200);
}

static void test_a_new_grant_id_is_one_the_check_takes(void **state)
{
	char id[WARDEN_GRANT_ID_LEN + 1];
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		memset(id, 'X', sizeof(id));
		assert_int_equal(warden_grant_id_new(id), 0);
		assert_int_equal(strlen(id), WARDEN_GRANT_ID_LEN);
		assert_int_equal(warden_grant_id_ok(id), 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_is_2n_digits_and_writes_nothing_past_them),
		cmocka_unit_test(test_a_thousand_names_are_all_different),
		cmocka_unit_test(test_bytes_are_not_all_one_value),
		cmocka_unit_test(test_a_new_grant_id_is_one_the_check_takes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
