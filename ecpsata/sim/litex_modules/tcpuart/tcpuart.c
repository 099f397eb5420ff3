/* SPDX-License-Identifier: BSD-2-Clause */
/* tcpuart: a LiteX simulator module joining a stream UART's pads to one TCP client on loopback.
 *
 * Unlike the stock serial2tcp it can be instantiated on any interface name (several at once: the
 * console and litex_server's bridge), listens on 127.0.0.1 only, and keeps bytes the SoC sends
 * while no client is connected (up to a buffer), so a late client still sees the boot banner.
 * Sockets are non-blocking and polled every POLL_EDGES clock edges to keep the simulation fast.
 * Received bytes are acknowledged at once (TCP_QUICKACK): a client that writes a request in two
 * small sends (litex_server's UART bridge does) would otherwise see its second send held by Nagle
 * until our delayed ACK, about 40 ms per CSR read.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "error.h"
#include "modules.h"

#define POLL_EDGES 64
#define BUF_SIZE   65536

struct fifo {
	unsigned char data[BUF_SIZE];
	size_t head, len;
};

struct session {
	char *tx, *tx_valid, *tx_ready;  /* SoC -> client ("source" pads) */
	char *rx, *rx_valid, *rx_ready;  /* client -> SoC ("sink" pads) */
	char *clk;
	clk_edge_state_t edge;
	int listen_fd, conn_fd;
	unsigned edges;
	struct fifo out, in;
	int port;
};

static int fifo_put(struct fifo *f, unsigned char c)
{
	if (f->len == BUF_SIZE)
		return -1;
	f->data[(f->head + f->len) % BUF_SIZE] = c;
	f->len++;
	return 0;
}

static int get_port(const char *args, int *port)
{
	json_object *obj, *val;
	if (!args)
		return -1;
	obj = json_tokener_parse(args);
	if (!obj)
		return -1;
	if (!json_object_object_get_ex(obj, "port", &val)) {
		json_object_put(obj);
		return -1;
	}
	*port = json_object_get_int(val);
	json_object_put(obj);
	return (*port > 0 && *port < 65536) ? 0 : -1;
}

static int tcpuart_start(void *base)
{
	(void)base;
	return RC_OK;
}

static int tcpuart_new(void **sess, char *args)
{
	struct session *s = calloc(1, sizeof(*s));
	struct sockaddr_in sin;
	int one = 1;
	if (!s)
		return RC_ERROR;
	s->conn_fd = -1;
	if (get_port(args, &s->port) != 0) {
		fprintf(stderr, "[tcpuart] needs args {\"port\": N} with 0 < N < 65536, got %s\n", args ? args : "none");
		free(s);
		return RC_JSERROR;
	}
	s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(s->port);
	if (bind(s->listen_fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(s->listen_fd, 1) != 0) {
		fprintf(stderr, "[tcpuart] cannot listen on 127.0.0.1:%d: %s\n", s->port, strerror(errno));
		close(s->listen_fd);
		free(s);
		return RC_ERROR;
	}
	fcntl(s->listen_fd, F_SETFL, O_NONBLOCK);
	*sess = s;
	return RC_OK;
}

static void *pad(struct pad_s *pads, const char *name)
{
	for (int i = 0; pads[i].name; i++)
		if (!strcmp(pads[i].name, name))
			return pads[i].signal;
	return NULL;
}

static int tcpuart_add_pads(void *sess, struct pad_list_s *plist)
{
	struct session *s = sess;
	struct pad_s *p = plist->pads;
	if (!strcmp(plist->name, "sys_clk")) {
		s->clk = pad(p, "sys_clk");
		return s->clk ? RC_OK : RC_ERROR;
	}
	s->tx = pad(p, "source_data");
	s->tx_valid = pad(p, "source_valid");
	s->tx_ready = pad(p, "source_ready");
	s->rx = pad(p, "sink_data");
	s->rx_valid = pad(p, "sink_valid");
	s->rx_ready = pad(p, "sink_ready");
	if (!s->tx || !s->tx_valid || !s->tx_ready || !s->rx || !s->rx_valid || !s->rx_ready) {
		fprintf(stderr, "[tcpuart] interface %s lacks source_*/sink_* pads\n", plist->name);
		return RC_ERROR;
	}
	return RC_OK;
}

static void drop_client(struct session *s)
{
	close(s->conn_fd);
	s->conn_fd = -1;
}

static void poll_sockets(struct session *s)
{
	if (s->conn_fd < 0) {
		int fd = accept(s->listen_fd, NULL, NULL);
		if (fd < 0)
			return;
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(fd, F_SETFL, O_NONBLOCK);
		s->conn_fd = fd;
	}
	while (s->out.len) {
		size_t n = s->out.len;
		if (s->out.head + n > BUF_SIZE)
			n = BUF_SIZE - s->out.head;
		ssize_t w = send(s->conn_fd, s->out.data + s->out.head, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				drop_client(s);
			break;
		}
		s->out.head = (s->out.head + w) % BUF_SIZE;
		s->out.len -= w;
	}
	if (s->conn_fd >= 0 && s->in.len == 0) {
#ifdef TCP_QUICKACK
		/* Linux leaves quick-ACK mode by itself (our replies make the connection look
		 * interactive): set it again on every poll, before the client's next bytes arrive. */
		int one = 1;
		setsockopt(s->conn_fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
#endif
		ssize_t r = recv(s->conn_fd, s->in.data, BUF_SIZE, 0);
		if (r == 0)
			drop_client(s);
		else if (r > 0) {
			s->in.head = 0;
			s->in.len = r;
		} else if (errno != EAGAIN && errno != EWOULDBLOCK)
			drop_client(s);
	}
}

static int tcpuart_tick(void *sess, uint64_t time_ps)
{
	struct session *s = sess;
	(void)time_ps;
	if (!clk_pos_edge(&s->edge, *s->clk))
		return RC_OK;
	/* Signals are read after the edge's evaluation: tx_ready is always 1, so a valid byte seen now
	 * is taken at the next edge; likewise a byte presented now while the SoC shows ready. */
	if (*s->tx_valid)
		fifo_put(&s->out, (unsigned char)*s->tx);  /* a full buffer drops, like a UART overrun */
	*s->tx_ready = 1;
	if (++s->edges % POLL_EDGES == 0)
		poll_sockets(s);
	*s->rx_valid = 0;
	if (s->in.len) {
		*s->rx = s->in.data[s->in.head];
		*s->rx_valid = 1;
		if (*s->rx_ready) {
			s->in.head++;
			s->in.len--;
		}
	}
	return RC_OK;
}

static int tcpuart_close(void *sess)
{
	struct session *s = sess;
	if (s->conn_fd >= 0)
		close(s->conn_fd);
	close(s->listen_fd);
	free(s);
	return RC_OK;
}

static struct ext_module_s ext_mod = {
	"tcpuart",
	tcpuart_start,
	tcpuart_new,
	tcpuart_add_pads,
	tcpuart_close,
	tcpuart_tick,
};

int litex_sim_ext_module_init(int (*register_module)(struct ext_module_s *));
int litex_sim_ext_module_init(int (*register_module)(struct ext_module_s *))
{
	return register_module(&ext_mod);
}
