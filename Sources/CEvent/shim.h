#ifndef GATEWAY_CLIBEVENT_SHIM_H
#define GATEWAY_CLIBEVENT_SHIM_H

// <sys/types.h> must come first in every shim: Debian's event2/event-config.h defines
// _GNU_SOURCE, and if glibc's features.h has not settled before that, another module that
// includes system headers (zlib, OpenSSL) sees a different fd_set and clang refuses to build.
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
// Declares struct ssl_st only; OpenSSL itself comes from COpenSSL.
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/http.h>
// Not event2/http_struct.h: it would make evhttp_request a complete type and change how
// Swift imports request pointers. keyvalq_struct.h is enough to walk header lists.
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/util.h>

// accept4 is declared only under _GNU_SOURCE, which this header cannot count on.
int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
// gettid (glibc 2.30+) likewise: the kernel's id of the calling thread.
pid_t gettid(void);

#endif
