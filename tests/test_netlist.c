/*
 * test_netlist.c — the allowlist network's destination lists and hosts
 * files (host/netlist.h).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "netlist.h"

static int priv(const char *s)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, s, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	else
		fail_msg("not an address: %s", s);
	return warden_netlist_addr_private((struct sockaddr *)&ss);
}

static void test_wildcards_match_below_the_name_never_the_name(void **state)
{
	(void)state;
	assert_int_equal(warden_netlist_match("*.example.com", "a.example.com"), 1);
	assert_int_equal(warden_netlist_match("*.example.com", "a.b.example.com"), 1);
	assert_int_equal(warden_netlist_match("*.example.com", "example.com"), 0);
	assert_int_equal(warden_netlist_match("*.example.com", "badexample.com"), 0);
	assert_int_equal(warden_netlist_match("example.com", "example.com"), 2);
	assert_int_equal(warden_netlist_match("example.com", "a.example.com"), 0);
}

static void test_addresses_match_only_addresses(void **state)
{
	char *list[] = { "good.test", "127.0.0.1", "::1" };

	(void)state;
	assert_int_equal(warden_netlist_match_any(list, 3, "127.0.0.1"), 2);
	assert_int_equal(warden_netlist_match_any(list, 3, "0:0::1"), 2);
	assert_int_equal(warden_netlist_match_any(list, 3, "127.0.0.2"), 0);
	assert_int_equal(warden_netlist_match("*.0.0.1", "127.0.0.1"), 0);
	assert_true(warden_netlist_is_literal("10.1.2.3"));
	assert_false(warden_netlist_is_literal("good.test"));
}

static void test_entries_are_checked_and_normalized(void **state)
{
	char out[300];

	(void)state;
	assert_null(warden_netlist_entry_problem("registry.npmjs.org"));
	assert_null(warden_netlist_entry_problem("*.github.com"));
	assert_null(warden_netlist_entry_problem("[2001:db8::1]"));
	assert_non_null(warden_netlist_entry_problem("-a.test"));
	assert_non_null(warden_netlist_entry_problem("*"));
	assert_non_null(warden_netlist_entry_problem("a b"));
	assert_non_null(warden_netlist_entry_problem("[good.test]"));
	assert_int_equal(warden_netlist_normalize("[::1]", out, sizeof(out)), 0);
	assert_string_equal(out, "::1");
	assert_int_equal(warden_netlist_normalize("Good.TEST.", out, sizeof(out)), 0);
	assert_string_equal(out, "good.test");
	assert_int_equal(warden_netlist_normalize("abc", out, 3), -1);
}

static void test_private_loopback_and_link_local_are_told_from_public(void **state)
{
	(void)state;
	assert_true(priv("127.0.0.1"));
	assert_true(priv("10.0.0.1"));
	assert_true(priv("172.31.0.1"));
	assert_true(priv("192.168.1.1"));
	assert_true(priv("169.254.169.254"));
	assert_true(priv("100.64.0.1"));
	assert_true(priv("0.0.0.0"));
	assert_true(priv("224.0.0.1"));
	assert_true(priv("::1"));
	assert_true(priv("::"));
	assert_true(priv("fe80::1"));
	assert_true(priv("fd00::1"));
	assert_true(priv("::ffff:127.0.0.1"));
	assert_false(priv("93.184.216.34"));
	assert_false(priv("172.32.0.1"));
	assert_false(priv("2606:4700::1111"));
	assert_false(priv("::ffff:1.1.1.1"));
}

static void test_hosts_files_parse_and_bad_lines_are_named(void **state)
{
	static const char text[] = "# test names\n127.0.0.1 good.test Bad.Test # both\n\n::1\tsix.test\n";
	struct warden_hosts h;
	char err[256];

	(void)state;
	assert_int_equal(warden_hosts_parse(text, strlen(text), "h", &h, err, sizeof(err)), 0);
	assert_int_equal(h.n, 3);
	assert_string_equal(h.e[1].name, "bad.test");
	assert_int_equal(h.e[1].addr.ss_family, AF_INET);
	assert_int_equal(h.e[2].addr.ss_family, AF_INET6);
	warden_hosts_free(&h);

	assert_int_equal(warden_hosts_parse("good.test 127.0.0.1\n", 20, "h", &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "h:1:"));
	assert_non_null(strstr(err, "not an IP address"));
	assert_int_equal(warden_hosts_parse("\n127.0.0.1\n", 11, "h", &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "h:2: an address without a name"));
	assert_int_equal(warden_hosts_load("/nonexistent/hosts", &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/hosts"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wildcards_match_below_the_name_never_the_name),
		cmocka_unit_test(test_addresses_match_only_addresses),
		cmocka_unit_test(test_entries_are_checked_and_normalized),
		cmocka_unit_test(test_private_loopback_and_link_local_are_told_from_public),
		cmocka_unit_test(test_hosts_files_parse_and_bad_lines_are_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
