/*
 * proxyreq.c — the allowlist proxy's request parsers (proxyreq.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proxyreq.h"

#define WHY(...) (snprintf(why, whylen, __VA_ARGS__), WARDEN_PROXYREQ_BAD)

static const char *find_head_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 3 < len; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' &&
		    buf[i + 3] == '\n')
			return buf + i + 4;
	return NULL;
}

/* A port of 1 to 5 digits, 1..65535. */
static int parse_port(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

/* host[:port] or [v6][:port] (authority without userinfo) into out. */
static int parse_authority(const char *s, size_t n, int default_port,
                           struct warden_proxyreq *out)
{
	const char *colon = NULL, *h = s;
	size_t hn, i;
	int port = default_port;

	if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (close == NULL)
			return -1;
		h = s + 1;
		hn = (size_t)(close - h);
		if ((size_t)(close - s) + 1 < n) {
			if (close[1] != ':')
				return -1;
			colon = close + 1;
		}
	} else {
		colon = memchr(s, ':', n);
		hn = colon != NULL ? (size_t)(colon - s) : n;
	}
	if (colon != NULL &&
	    (port = parse_port(colon + 1, n - (size_t)(colon + 1 - s))) < 0)
		return -1;
	if (port <= 0 || hn == 0 || hn >= sizeof(out->host))
		return -1;
	for (i = 0; i < hn; i++) {
		unsigned char c = (unsigned char)h[i];
		if (!isalnum(c) && c != '.' && c != '-' && c != '_' && c != ':')
			return -1;
		out->host[i] = (char)c;
	}
	out->host[hn] = '\0';
	if (s[0] == '[') {
		unsigned char a[16];
		if (inet_pton(AF_INET6, out->host, a) != 1)
			return -1;
	} else if (memchr(out->host, ':', hn) != NULL) {
		return -1;
	}
	out->port = port;
	return 0;
}

/* Whether a header line (without CRLF) is one the proxy drops. */
static int dropped_header(const char *line, size_t n)
{
	static const char *const names[] = { "proxy-", "connection:", "keep-alive:" };
	size_t i, k;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		k = strlen(names[i]);
		if (n >= k && strncasecmp(line, names[i], k) == 0)
			return 1;
	}
	return 0;
}

static int append(struct warden_proxyreq *out, const char *s, size_t n)
{
	if (out->rewritten_len + n > sizeof(out->rewritten))
		return -1;
	memcpy(out->rewritten + out->rewritten_len, s, n);
	out->rewritten_len += n;
	return 0;
}

int warden_proxyreq_http(const char *buf, size_t len,
                         struct warden_proxyreq *out, char *why, size_t whylen)
{
	const char *end, *eol, *sp1, *sp2, *target, *line, *path;
	size_t mlen, tlen, vlen, n;

	memset(out, 0, offsetof(struct warden_proxyreq, rewritten));
	out->rewritten_len = 0;
	end = find_head_end(buf, len > WARDEN_PROXYREQ_HEAD_MAX ? WARDEN_PROXYREQ_HEAD_MAX : len);
	if (end == NULL) {
		if (len >= WARDEN_PROXYREQ_HEAD_MAX)
			return WHY("a request head longer than %d bytes", WARDEN_PROXYREQ_HEAD_MAX);
		return WARDEN_PROXYREQ_MORE;
	}
	out->consumed = (size_t)(end - buf);
	/* Lines end in CRLF and nowhere else: a bare CR or LF, or another
	 * control byte, could end a line for the server that does not end
	 * one here. */
	for (n = 0; n < out->consumed; n++) {
		unsigned char ch = (unsigned char)buf[n];
		if (ch == '\r' ? buf[n + 1] != '\n'
		    : ch == '\n' ? n == 0 || buf[n - 1] != '\r'
		    : (ch < 0x20 && ch != '\t') || ch == 0x7f)
			return WHY("a control byte or a bare CR or LF in the request head");
	}
	eol = memchr(buf, '\r', out->consumed);
	if (eol == NULL || eol[1] != '\n')
		return WHY("a request line without CRLF");
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (sp1 == NULL || sp1 == buf)
		return WHY("not an HTTP request line");
	mlen = (size_t)(sp1 - buf);
	for (n = 0; n < mlen; n++)
		if (!isupper((unsigned char)buf[n]))
			return WHY("not an HTTP method");
	target = sp1 + 1;
	sp2 = memchr(target, ' ', (size_t)(eol - target));
	if (sp2 == NULL || sp2 == target)
		return WHY("not an HTTP request line");
	tlen = (size_t)(sp2 - target);
	vlen = (size_t)(eol - sp2 - 1);
	if (vlen != 8 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return WHY("not HTTP/1.0 or HTTP/1.1");
	if (mlen == 7 && strncmp(buf, "CONNECT", 7) == 0) {
		if (parse_authority(target, tlen, -1, out) < 0)
			return WHY("CONNECT needs host:port");
		out->kind = WARDEN_PROXYREQ_CONNECT;
		return WARDEN_PROXYREQ_DONE;
	}
	if (tlen < 8 || strncasecmp(target, "http://", 7) != 0)
		return WHY("a proxy request names an absolute http:// URI (https goes through CONNECT)");
	target += 7;
	tlen -= 7;
	path = memchr(target, '/', tlen);
	n = path != NULL ? (size_t)(path - target) : tlen;
	if (memchr(target, '@', n) != NULL || memchr(target, '?', n) != NULL ||
	    memchr(target, '#', n) != NULL)
		return WHY("an http:// URI with user information or no path");
	if (parse_authority(target, n, 80, out) < 0)
		return WHY("an http:// URI without a valid host[:port]");
	out->kind = WARDEN_PROXYREQ_HTTP;
	/* The request line in origin form, then the headers kept. */
	if (append(out, buf, mlen + 1) < 0 ||
	    (path != NULL ? append(out, path, tlen - n) : append(out, "/", 1)) < 0 ||
	    append(out, sp2, (size_t)(eol - sp2) + 2) < 0)
		return WHY("a request head too long");
	for (line = eol + 2; line < end - 2; line = eol + 2) {
		eol = memchr(line, '\r', (size_t)(end - line));
		if (eol == NULL || eol[1] != '\n')
			return WHY("a header line without CRLF");
		if (line[0] == ' ' || line[0] == '\t')
			return WHY("a folded header line");
		if (!dropped_header(line, (size_t)(eol - line)) &&
		    append(out, line, (size_t)(eol - line) + 2) < 0)
			return WHY("a request head too long");
	}
	if (append(out, "Connection: close\r\n\r\n", 21) < 0)
		return WHY("a request head too long");
	return WARDEN_PROXYREQ_DONE;
}

int warden_proxyreq_socks_greeting(const unsigned char *buf, size_t len,
                                   size_t *consumed, char *why, size_t whylen)
{
	size_t i;

	if (len < 2)
		return WARDEN_PROXYREQ_MORE;
	if (buf[0] != 5)
		return WHY("SOCKS version %u (SOCKS5 only)", buf[0]);
	if (buf[1] == 0)
		return WHY("a SOCKS5 greeting offering no method");
	if (len < 2 + (size_t)buf[1])
		return WARDEN_PROXYREQ_MORE;
	*consumed = 2 + (size_t)buf[1];
	for (i = 0; i < buf[1]; i++)
		if (buf[2 + i] == 0)
			return WARDEN_PROXYREQ_DONE;
	return WHY("a SOCKS5 client that does not offer \"no authentication\"");
}

int warden_proxyreq_socks_request(const unsigned char *buf, size_t len,
                                  struct warden_proxyreq *out, int *reply_code,
                                  char *why, size_t whylen)
{
	size_t alen, need, i;

	memset(out, 0, offsetof(struct warden_proxyreq, rewritten));
	out->rewritten_len = 0;
	*reply_code = 1;
	if (len < 5)
		return WARDEN_PROXYREQ_MORE;
	if (buf[0] != 5 || buf[2] != 0)
		return WHY("not a SOCKS5 request");
	if (buf[1] != 1) {
		*reply_code = 7;
		return WHY("SOCKS5 command %u (CONNECT only)", buf[1]);
	}
	switch (buf[3]) {
	case 1: alen = 4; need = 4 + 4 + 2; break;
	case 4: alen = 16; need = 4 + 16 + 2; break;
	case 3: alen = buf[4]; need = 4 + 1 + alen + 2; break;
	default:
		*reply_code = 8;
		return WHY("SOCKS5 address type %u", buf[3]);
	}
	if (len < need)
		return WARDEN_PROXYREQ_MORE;
	if (buf[3] == 1) {
		inet_ntop(AF_INET, buf + 4, out->host, sizeof(out->host));
	} else if (buf[3] == 4) {
		inet_ntop(AF_INET6, buf + 4, out->host, sizeof(out->host));
	} else {
		if (alen == 0)
			return WHY("an empty SOCKS5 name");
		for (i = 0; i < alen; i++) {
			unsigned char c = buf[5 + i];
			if (!isalnum(c) && c != '.' && c != '-' && c != '_' && c != ':')
				return WHY("a SOCKS5 name with a byte outside [A-Za-z0-9._:-]");
			out->host[i] = (char)c;
		}
		out->host[alen] = '\0';
		if (memchr(out->host, ':', alen) != NULL) {
			unsigned char a[16];
			if (inet_pton(AF_INET6, out->host, a) != 1)
				return WHY("a SOCKS5 name with ':' that is no IPv6 address");
		}
	}
	out->port = (buf[need - 2] << 8) | buf[need - 1];
	if (out->port == 0)
		return WHY("SOCKS5 port 0");
	out->kind = WARDEN_PROXYREQ_SOCKS5;
	out->consumed = need;
	return WARDEN_PROXYREQ_DONE;
}
