/*
 * netlist.c — destination lists and hosts files of the allowlist network
 * (netlist.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netlist.h"

#define HOSTS_FILE_MAX (1024 * 1024)

static int literal(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_storage tmp;

	if (ss == NULL)
		ss = &tmp, v4 = (struct sockaddr_in *)ss, v6 = (struct sockaddr_in6 *)ss;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		return AF_INET6;
	}
	return 0;
}

int warden_netlist_is_literal(const char *host)
{
	return literal(host, NULL) != 0;
}

/* A DNS name: labels of [a-z0-9_-], 1 to 63 bytes, no leading or
 * trailing '-', at most 253 bytes in all. */
static const char *name_problem(const char *s)
{
	size_t n = strlen(s), label = 0;
	const char *c;

	if (n == 0)
		return "empty";
	if (n > WARDEN_NETLIST_NAME_MAX)
		return "longer than a DNS name (253 bytes)";
	for (c = s;; c++) {
		if (*c == '.' || *c == '\0') {
			if (label == 0)
				return "an empty label (no leading, trailing or doubled '.')";
			if (c[-1] == '-')
				return "a label ends with '-'";
			if (*c == '\0')
				return NULL;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
			return "not a domain name (letters, digits, '-', '_' and '.' only)";
		if (label == 0 && *c == '-')
			return "a label starts with '-'";
		if (++label > 63)
			return "a label longer than 63 bytes";
	}
}

const char *warden_netlist_entry_problem(const char *s)
{
	char buf[WARDEN_NETLIST_NAME_MAX + 3];
	size_t n = strlen(s);

	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		if (n - 2 >= sizeof(buf))
			return "not an IPv6 address";
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = '\0';
		return literal(buf, NULL) == AF_INET6 ? NULL : "not an IPv6 address";
	}
	if (literal(s, NULL) != 0)
		return NULL;
	if (strchr(s, '*') != NULL) {
		if (strncmp(s, "*.", 2) != 0 || strchr(s + 2, '*') != NULL)
			return "a wildcard is '*.' before a name, nowhere else (e.g. *.example.com)";
		if (strchr(s + 2, '.') == NULL)
			return "a wildcard needs a name of two labels or more after '*.' (e.g. *.example.com, not *.com)";
		return name_problem(s + 2);
	}
	return name_problem(s);
}

int warden_netlist_normalize(const char *s, char *out, size_t outlen)
{
	size_t n = strlen(s), i;

	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (n > 0 && s[n - 1] == '.' && literal(s, NULL) == 0)
		n--;    /* a fully qualified name's trailing dot */
	if (n + 1 > outlen)
		return -1;
	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[n] = '\0';
	return 0;
}

int warden_netlist_match(const char *entry, const char *host)
{
	struct sockaddr_storage a, b;
	size_t ne, nh;
	int fa, fb;

	fa = literal(entry, &a);
	fb = literal(host, &b);
	if (fa != 0 || fb != 0) {
		if (fa != fb)
			return 0;
		if (fa == AF_INET)
			return memcmp(&((struct sockaddr_in *)&a)->sin_addr,
			              &((struct sockaddr_in *)&b)->sin_addr, 4) == 0 ? 2 : 0;
		return memcmp(&((struct sockaddr_in6 *)&a)->sin6_addr,
		              &((struct sockaddr_in6 *)&b)->sin6_addr, 16) == 0 ? 2 : 0;
	}
	if (strncmp(entry, "*.", 2) == 0) {
		ne = strlen(entry + 1);     /* ".example.com" */
		nh = strlen(host);
		return nh > ne && strcmp(host + nh - ne, entry + 1) == 0 ? 1 : 0;
	}
	return strcmp(entry, host) == 0 ? 2 : 0;
}

int warden_netlist_match_any(char *const *list, size_t n, const char *host)
{
	int best = 0, m;
	size_t i;

	for (i = 0; i < n; i++)
		if ((m = warden_netlist_match(list[i], host)) > best)
			best = m;
	return best;
}

static int v4_private(const unsigned char *a)
{
	return a[0] == 0 || a[0] == 10 || a[0] == 127 ||
	       (a[0] == 100 && (a[1] & 0xc0) == 64) ||
	       (a[0] == 169 && a[1] == 254) ||
	       (a[0] == 172 && (a[1] & 0xf0) == 16) ||
	       (a[0] == 192 && a[1] == 168) ||
	       (a[0] == 192 && a[1] == 0 && a[2] == 0) ||
	       (a[0] == 198 && (a[1] & 0xfe) == 18) ||
	       a[0] >= 224;
}

int warden_netlist_addr_private(const struct sockaddr *sa)
{
	const unsigned char *a;
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const unsigned char zero[16];

	if (sa->sa_family == AF_INET)
		return v4_private((const unsigned char *)
		                  &((const struct sockaddr_in *)(const void *)sa)->sin_addr);
	if (sa->sa_family != AF_INET6)
		return 1;
	a = (const unsigned char *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (memcmp(a, mapped, 12) == 0)
		return v4_private(a + 12);
	if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1))
		return 1;       /* :: and ::1 */
	if (memcmp(a, zero, 12) == 0)
		return 1;       /* IPv4-compatible, deprecated */
	return (a[0] & 0xfe) == 0xfc ||                  /* fc00::/7 */
	       (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || /* fe80::/10 */
	       (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) || /* fec0::/10 */
	       a[0] == 0xff ||                            /* multicast */
	       (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b) ||
	       (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8);
}

void warden_hosts_free(struct warden_hosts *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->e[i].name);
	free(h->e);
	h->e = NULL;
	h->n = 0;
}

static int hosts_add(struct warden_hosts *h, const char *name, size_t len,
                     const struct sockaddr_storage *ss)
{
	struct warden_hosts_entry *grown;
	size_t i;

	grown = realloc(h->e, (h->n + 1) * sizeof(*grown));
	if (grown == NULL)
		return -1;
	h->e = grown;
	if ((grown[h->n].name = malloc(len + 1)) == NULL)
		return -1;
	for (i = 0; i < len; i++)
		grown[h->n].name[i] = (char)tolower((unsigned char)name[i]);
	grown[h->n].name[len] = '\0';
	grown[h->n].addr = *ss;
	grown[h->n].addrlen = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in)
	                                                 : sizeof(struct sockaddr_in6);
	h->n++;
	return 0;
}

int warden_hosts_parse(const char *text, size_t len, const char *name,
                       struct warden_hosts *out, char *err, size_t errlen)
{
	const char *p = text, *end = text + len, *eol, *w, *we;
	struct sockaddr_storage ss;
	char word[WARDEN_NETLIST_NAME_MAX + 2];
	unsigned line = 0;
	int first;

	memset(out, 0, sizeof(*out));
	for (; p < end; p = eol + 1) {
		line++;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (eol == NULL)
			eol = end;
		first = 1;
		for (w = p; w < eol;) {
			while (w < eol && (*w == ' ' || *w == '\t' || *w == '\r'))
				w++;
			if (w == eol || *w == '#')
				break;
			for (we = w; we < eol && *we != ' ' && *we != '\t' &&
			             *we != '\r' && *we != '#'; we++)
				;
			if ((size_t)(we - w) >= sizeof(word)) {
				snprintf(err, errlen, "%s:%u: a word longer than a DNS name",
				         name, line);
				goto bad;
			}
			memcpy(word, w, (size_t)(we - w));
			word[we - w] = '\0';
			if (first) {
				if (literal(word, &ss) == 0) {
					snprintf(err, errlen, "%s:%u: '%s' is not an IP address "
					         "(hosts(5): ADDRESS NAME [ALIAS]...)", name, line, word);
					goto bad;
				}
				first = 0;
			} else {
				if (name_problem(word) != NULL) {
					snprintf(err, errlen, "%s:%u: '%s': %s", name, line, word,
					         name_problem(word));
					goto bad;
				}
				if (hosts_add(out, word, strlen(word), &ss) < 0) {
					snprintf(err, errlen, "%s: out of memory", name);
					goto bad;
				}
			}
			w = we;
		}
		if (!first && (out->n == 0 || out->e[out->n - 1].addr.ss_family != ss.ss_family ||
		               memcmp(&out->e[out->n - 1].addr, &ss, sizeof(ss)) != 0)) {
			snprintf(err, errlen, "%s:%u: an address without a name", name, line);
			goto bad;
		}
		if (eol == end)
			break;
	}
	return 0;
bad:
	warden_hosts_free(out);
	return -1;
}

int warden_hosts_load(const char *path, struct warden_hosts *out, char *err,
                      size_t errlen)
{
	struct stat st;
	char *buf;
	ssize_t got;
	size_t have = 0;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "hosts_file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > HOSTS_FILE_MAX) {
		snprintf(err, errlen, "hosts_file %s: not a regular file of at most 1 MiB", path);
		close(fd);
		return -1;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		snprintf(err, errlen, "hosts_file %s: out of memory", path);
		return -1;
	}
	while (have < (size_t)st.st_size &&
	       (got = read(fd, buf + have, (size_t)st.st_size - have)) > 0)
		have += (size_t)got;
	close(fd);
	rc = warden_hosts_parse(buf, have, path, out, err, errlen);
	free(buf);
	return rc;
}
