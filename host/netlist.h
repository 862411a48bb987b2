/*
 * netlist.h — the destination lists of the allowlist network (DESIGN §2
 * "Network knob"): allowed_domains, denied_domains and hosts_file.
 *
 * A list entry is one of
 *   an exact name        registry.npmjs.org (case-insensitive, no trailing
 *                        dot; labels of letters, digits, '-' and '_')
 *   a wildcard           *.example.com: every name below example.com, at
 *                        any depth, never example.com itself
 *   an IP literal        127.0.0.1, ::1 or [::1]: a destination given as an
 *                        address matches only an address listed as one
 * The proxy decides a destination (the name or address the client asked
 * for) as: denied when a denied_domains entry matches (deny wins), else
 * allowed when an allowed_domains entry matches, else unknown (asked).
 *
 * An address that is private, loopback, link-local, multicast or
 * otherwise not a public unicast address (warden_netlist_addr_private) is
 * reached only when the destination is listed exactly: the address
 * itself, or the name itself (not through a wildcard) in allowed_domains;
 * an address hosts_file gives a name counts as listed (the operator wrote
 * it).
 * So a public name that resolves, or is made to resolve, to 127.0.0.1 or
 * 10.0.0.1 is refused, whoever answered for it.
 *
 * hosts_file is read in hosts(5) form ("ADDRESS NAME [ALIAS]...", '#'
 * comments) and consulted before DNS.
 */
#ifndef WARDEN_NETLIST_H
#define WARDEN_NETLIST_H

#include <stddef.h>

#include <sys/socket.h>

/* The most entries one list holds; the longest name. */
#define WARDEN_NETLIST_MAX 256
#define WARDEN_NETLIST_NAME_MAX 253

/* NULL when s is a valid entry, else why not (one clause, for the
 * config's message). */
const char *warden_netlist_entry_problem(const char *s);

/* Lower-cases an entry (or a destination host) into out (the brackets of
 * an IPv6 literal removed).  0, or -1 when it does not fit. */
int warden_netlist_normalize(const char *s, char *out, size_t outlen);

/* 1 when host (normalized) is an IP literal. */
int warden_netlist_is_literal(const char *host);

/* How entry matches host (both normalized): 0 no, 1 through a wildcard,
 * 2 exactly. */
int warden_netlist_match(const char *entry, const char *host);

/* The best match of host in a list (0, 1 or 2 as above). */
int warden_netlist_match_any(char *const *list, size_t n, const char *host);

/* 1 when the address (AF_INET or AF_INET6) is no public unicast address:
 * unspecified, loopback, private (RFC 1918, fc00::/7), shared (100.64/10),
 * link-local, multicast, reserved or broadcast; an IPv4-mapped IPv6
 * address is judged as its IPv4 address. */
int warden_netlist_addr_private(const struct sockaddr *sa);

/* One line of a hosts file. */
struct warden_hosts_entry {
	char *name;             /* lower case */
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

struct warden_hosts {
	struct warden_hosts_entry *e;
	size_t n;
};

/* Reads a hosts(5) file.  0, or -1 with a line "path:line: why" in err
 * (a missing or unreadable file is an error too). */
int warden_hosts_load(const char *path, struct warden_hosts *out, char *err,
                      size_t errlen);
/* Parses hosts(5) text (for the loader and the tests). */
int warden_hosts_parse(const char *text, size_t len, const char *name,
                       struct warden_hosts *out, char *err, size_t errlen);
void warden_hosts_free(struct warden_hosts *h);

#endif
