/*
 * proxyreq.h — the request parsers of the allowlist proxy (proxy.h): the
 * first bytes a client sends, which name the destination.  They read
 * hostile bytes and nothing else: no I/O, no allocation, bounded input
 * (fuzz/fuzz_proxyreq.c).
 *
 *   HTTP CONNECT     "CONNECT host:port HTTP/1.x" + headers + CRLF CRLF
 *   HTTP, absolute   "METHOD http://host[:port]/path HTTP/1.x" + headers:
 *                    the request is passed on in origin form ("METHOD
 *                    /path HTTP/1.x"), Proxy-* and Connection headers
 *                    dropped and "Connection: close" added, so that one
 *                    client connection carries requests to one
 *                    destination only
 *   SOCKS5           a greeting offering "no authentication", then
 *                    CONNECT (command 1) to a name (ATYP 3), an IPv4
 *                    (ATYP 1) or an IPv6 address (ATYP 4)
 */
#ifndef WARDEN_PROXYREQ_H
#define WARDEN_PROXYREQ_H

#include <stddef.h>

/* The longest request head read (an HTTP head, or a SOCKS exchange). */
#define WARDEN_PROXYREQ_HEAD_MAX 16384

enum warden_proxyreq_kind {
	WARDEN_PROXYREQ_CONNECT = 1,    /* HTTP CONNECT: reply 200, then relay */
	WARDEN_PROXYREQ_HTTP = 2,       /* absolute-URI HTTP: send `rewritten` */
	WARDEN_PROXYREQ_SOCKS5 = 3,     /* SOCKS5 CONNECT */
};

struct warden_proxyreq {
	int kind;                       /* enum warden_proxyreq_kind */
	char host[256];                 /* as asked: a name or an address
	                                   (an IPv6 one without brackets) */
	int port;                       /* 1..65535 */
	size_t consumed;                /* bytes of the input the head took */
	/* WARDEN_PROXYREQ_HTTP: the head to send to the destination. */
	char rewritten[WARDEN_PROXYREQ_HEAD_MAX + 64];
	size_t rewritten_len;
};

/* Results of the parsers. */
#define WARDEN_PROXYREQ_MORE 0          /* need more bytes */
#define WARDEN_PROXYREQ_DONE 1          /* out is filled */
#define WARDEN_PROXYREQ_BAD (-1)        /* refuse: why says it */

/* HTTP: CONNECT or an absolute URI.  why (one line) on BAD. */
int warden_proxyreq_http(const char *buf, size_t len,
                         struct warden_proxyreq *out, char *why, size_t whylen);

/* SOCKS5 greeting: DONE with *consumed set when "no authentication" is
 * offered (reply 05 00), BAD otherwise (reply 05 FF). */
int warden_proxyreq_socks_greeting(const unsigned char *buf, size_t len,
                                   size_t *consumed, char *why, size_t whylen);

/* SOCKS5 request after the greeting.  On BAD *reply_code is the SOCKS
 * reply code to send (7: command not supported, 8: address type not
 * supported, 1: general failure). */
int warden_proxyreq_socks_request(const unsigned char *buf, size_t len,
                                  struct warden_proxyreq *out, int *reply_code,
                                  char *why, size_t whylen);

#endif
