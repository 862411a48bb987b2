/*
 * fuzz_proxyreq.c — libFuzzer target for the allowlist proxy's request
 * parsers (host/proxyreq.c): the bytes a confined command sends first.
 *
 * The first byte picks the parser as the proxy does (5: SOCKS5 greeting
 * then request; else HTTP).  Checks, for any bytes: a parser never reads
 * past its input (ASan), DONE names a host of [A-Za-z0-9._:-] that fits,
 * a port in 1..65535 and a consumed count within the input; a rewritten
 * HTTP head starts with the method, ends with "Connection: close" and a
 * blank line, and carries no Proxy- header; BAD always says why in one
 * printable line.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxyreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct warden_proxyreq req;

static void check_why(int r, const char *why)
{
	size_t i;

	if (r != WARDEN_PROXYREQ_BAD)
		return;
	if (why[0] == '\0')
		abort();
	for (i = 0; why[i]; i++)
		if (!isprint((unsigned char)why[i]))
			abort();
}

static void check_done(size_t size)
{
	size_t i, n = strlen(req.host);

	if (n == 0 || n >= sizeof(req.host) || req.port < 1 || req.port > 65535 ||
	    req.consumed == 0 || req.consumed > size)
		abort();
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)req.host[i]) && !strchr("._:-", req.host[i]))
			abort();
	if (req.kind == WARDEN_PROXYREQ_HTTP) {
		const char *end = "Connection: close\r\n\r\n";
		size_t el = strlen(end), k;

		if (req.rewritten_len < el || req.rewritten_len > sizeof(req.rewritten) ||
		    memcmp(req.rewritten + req.rewritten_len - el, end, el) != 0)
			abort();
		for (k = 0; k + 8 < req.rewritten_len; k++)
			if (req.rewritten[k] == '\n' &&
			    strncasecmp(req.rewritten + k + 1, "proxy-", 6) == 0)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];
	size_t used = 0;
	int r, code = 0;

	why[0] = '\0';
	if (size > 0 && data[0] == 5) {
		r = warden_proxyreq_socks_greeting(data, size, &used, why, sizeof(why));
		check_why(r, why);
		if (r == WARDEN_PROXYREQ_DONE) {
			if (used > size)
				abort();
			why[0] = '\0';
			r = warden_proxyreq_socks_request(data + used, size - used, &req, &code,
			                                  why, sizeof(why));
			check_why(r, why);
			if (r == WARDEN_PROXYREQ_DONE)
				check_done(size - used);
			if (r == WARDEN_PROXYREQ_BAD && code != 1 && code != 7 && code != 8)
				abort();
		}
		return 0;
	}
	r = warden_proxyreq_http((const char *)data, size, &req, why, sizeof(why));
	check_why(r, why);
	if (r == WARDEN_PROXYREQ_DONE)
		check_done(size);
	return 0;
}
