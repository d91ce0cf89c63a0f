package dev.omnigraph.http.server;

import dev.omnigraph.http.wire.ErrorBodies;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.netty.NettyPipeline;

/**
 * What the edge adds to every connection's pipeline, below the routes: the connection cap (past it, only a health
 * or metrics probe is served, see {@link OverCap}), the deadline for a
 * request head (a client that sends half a request line and stalls is closed, however it trickles), and JSON
 * answers for requests the HTTP decoder refused (414 line too long, 431 headers too large, 400 malformed head or
 * body framing) where Reactor Netty would send an empty body. Refusals are written, the output is half-closed, and the connection is
 * closed when the client closes or shortly after, so the client reads the answer instead of a reset.
 */
final class ConnectionGuard {
    private static final long LINGER_MILLIS = 2_000;

    private final ServerLimits limits;
    private final RequestIds requestIds;
    private final AtomicInteger open = new AtomicInteger();

    ConnectionGuard(ServerLimits limits, RequestIds requestIds) {
        this.limits = limits;
        this.requestIds = requestIds;
    }

    /** Connections open right now. */
    int open() {
        return open.get();
    }

    /** Installs the guard on a new connection (Reactor Netty's channel-init hook, on the connection's event loop). */
    void install(Channel channel) {
        int now = open.incrementAndGet();
        channel.closeFuture().addListener(f -> open.decrementAndGet());
        if (now > limits.maxConnections()) {
            channel.pipeline().addAfter(NettyPipeline.HttpCodec, "omnigraph.overCap", new OverCap());
            return;
        }
        HeadDeadline deadline = new HeadDeadline();
        channel.pipeline().addBefore(NettyPipeline.HttpCodec, "omnigraph.headDeadline", deadline.bytes());
        channel.pipeline().addAfter(NettyPipeline.HttpCodec, "omnigraph.decoded", deadline.messages());
        channel.pipeline().addAfter(NettyPipeline.HttpCodec, "omnigraph.responses", deadline.responses());
    }

    /**
     * A connection past the cap. Its request head is awaited (for at most the read timeout from connecting): a
     * liveness or metrics probe ({@code GET /healthz}, {@code GET /metrics}) is served and the connection closed
     * after it, so an orchestrator does not kill a server that is only being flooded with idle connections; any
     * other request is answered 503 {@code too_many_requests} and closed, and so is a connection that sends nothing.
     */
    private final class OverCap extends ChannelInboundHandlerAdapter {
        private boolean probe;
        private boolean refused;
        private ScheduledFuture<?> timer;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            timer = ctx.executor().schedule(() -> ctx.channel().close(), limits.readTimeout().toMillis(),
                    TimeUnit.MILLISECONDS);
            ctx.channel().closeFuture().addListener(f -> timer.cancel(false));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (refused) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof HttpRequest request) {
                timer.cancel(false);
                probe = !probe && isProbe(request) && request.decoderResult().isSuccess();
                if (!probe) {
                    refused = true;
                    ReferenceCountUtil.release(msg);
                    HttpProblem full = new HttpProblem(503, "too_many_requests", "the server has "
                            + limits.maxConnections() + " connections open, its limit; retry shortly");
                    answerAndClose(ctx, encode(full, "Retry-After: 1\r\n"));
                    return;
                }
                // One probe per connection: the answer closes it, so the slot it borrowed is given back at once.
                HttpUtil.setKeepAlive(request, false);
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** A liveness or metrics probe: served even past the connection cap. */
    static boolean isProbe(HttpRequest request) {
        String method = request.method().name();
        if (!method.equals("GET") && !method.equals("HEAD")) return false;
        String uri = request.uri();
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        return path.equals("/healthz") || path.equals("/metrics");
    }

    /** A refusal as raw HTTP/1.1 bytes: written below the codec, so it works at any point of the exchange. */
    private byte[] encode(HttpProblem problem, String extraHeaders) {
        String id = requestIds.next();
        byte[] body = Json.bytes(ErrorBodies.served(problem, n -> null, id).body());
        String head = "HTTP/1.1 " + problem.status() + " " + reason(problem.status()) + "\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n"
                + "Connection: close\r\n" + Exchange.REQUEST_ID + ": " + id + "\r\n" + extraHeaders + "\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, out, 0, headBytes.length);
        System.arraycopy(body, 0, out, headBytes.length, body.length);
        return out;
    }

    private static String reason(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 408 -> "Request Timeout";
            case 414 -> "URI Too Long";
            case 431 -> "Request Header Fields Too Large";
            default -> "Service Unavailable";
        };
    }

    /**
     * Writes {@code bytes} from the head of the pipeline, half-closes the output, and closes when the client does
     * (or after a short linger). Input read meanwhile is dropped by whichever handler sees it.
     */
    private static void answerAndClose(ChannelHandlerContext ctx, byte[] bytes) {
        Channel channel = ctx.channel();
        channel.config().setAutoRead(true);
        channel.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener(f -> {
            if (f.isSuccess() && channel instanceof DuplexChannel duplex) {
                duplex.shutdownOutput();
                channel.eventLoop().schedule(() -> channel.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            } else {
                channel.close();
            }
        });
    }

    /**
     * One connection's head deadline and decoder-failure answers: handlers on each side of the codec. All state is
     * touched on the connection's event loop only.
     */
    private final class HeadDeadline {
        private boolean betweenRequests = true;
        private boolean refused;
        /** Requests decoded whose final answer has not been written yet (more than one when pipelined). */
        private int unanswered;
        /** Whether the oldest unanswered request's final answer has begun (an interim 100 Continue does not count). */
        private boolean responseStarted;
        private ScheduledFuture<?> timer;

        /**
         * After the codec, outbound: follows the answers as HTTP messages, so that a broken body is answered in JSON
         * only when its request is the one being answered and nothing of that answer went out.
         */
        ChannelOutboundHandlerAdapter responses() {
            return new ChannelOutboundHandlerAdapter() {
                private boolean interim;

                @Override
                public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                    if (refused) {
                        // A route's answer queued before the refusal went out: the refusal (written below the
                        // codec) is the connection's last word.
                        ReferenceCountUtil.release(msg);
                        promise.setSuccess();
                        return;
                    }
                    if (msg instanceof HttpResponse response) {
                        interim = response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
                        responseStarted |= !interim;
                    }
                    if (msg instanceof LastHttpContent && !interim) {
                        unanswered = Math.max(0, unanswered - 1);
                        responseStarted = false;
                    }
                    ctx.write(msg, promise);
                }
            };
        }

        /** Before the codec: the first byte of a request head starts the clock. */
        ChannelInboundHandlerAdapter bytes() {
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (droppedAfterRefusal(msg)) return;
                    if (betweenRequests && timer == null && msg instanceof ByteBuf buf && buf.isReadable()) {
                        timer = ctx.executor().schedule(() -> ctx.channel().close(),
                                limits.readTimeout().toMillis(), TimeUnit.MILLISECONDS);
                    }
                    ctx.fireChannelRead(msg);
                }

                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                    stop();
                    ctx.fireChannelInactive();
                }
            };
        }

        /** After the codec: a decoded head stops the clock; a refused one is answered in JSON. */
        ChannelInboundHandlerAdapter messages() {
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (droppedAfterRefusal(msg)) return;
                    if (msg instanceof HttpRequest request) {
                        stop();
                        betweenRequests = false;
                        unanswered++;
                        if (request.decoderResult().isFailure()) {
                            refused = true;
                            ReferenceCountUtil.release(msg);
                            answerAndClose(ctx, encode(refusal(request.decoderResult().cause()), ""));
                            return;
                        }
                        if (request.protocolVersion().majorVersion() != 1) {
                            // Reactor Netty would refuse it further on, with an empty 400 (HTTP/2 prior knowledge).
                            refused = true;
                            ReferenceCountUtil.release(msg);
                            answerAndClose(ctx, encode(HttpProblem.badRequest(request.protocolVersion().text()
                                    + " is not served here; send HTTP/1.1 (or HTTP/1.0)"), ""));
                            return;
                        }
                    } else if (msg instanceof HttpContent content && content.decoderResult().isFailure()
                            && unanswered == 1 && !responseStarted) {
                        // Broken body framing (a chunk size that is not hex or overflows, a malformed trailer): the
                        // route already has the request, but nothing was answered yet and no earlier pipelined
                        // request waits for its answer, so the JSON 400 can go out instead of Reactor Netty's empty
                        // one. The route is cancelled when the connection closes.
                        refused = true;
                        Throwable cause = content.decoderResult().cause();
                        ReferenceCountUtil.release(msg);
                        answerAndClose(ctx, encode(HttpProblem.badRequest("malformed HTTP request body: "
                                + (cause == null || cause.getMessage() == null ? "unreadable framing" : cause.getMessage())), ""));
                        return;
                    }
                    if (msg instanceof LastHttpContent) betweenRequests = true;
                    ctx.fireChannelRead(msg);
                }
            };
        }

        /** Once refused, everything the client still sends is read and dropped until the connection closes. */
        private boolean droppedAfterRefusal(Object msg) {
            if (refused) ReferenceCountUtil.release(msg);
            return refused;
        }

        private void stop() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    private HttpProblem refusal(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return new HttpProblem(414, "bad_request", "the request line is longer than " + limits.maxUriBytes()
                    + " bytes; send long inputs in a request body");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return new HttpProblem(431, "bad_request", "the request headers are larger than " + limits.maxHeaderBytes()
                    + " bytes");
        }
        return HttpProblem.badRequest("malformed HTTP request: " + (cause == null ? "unreadable" : cause.getMessage()));
    }
}
