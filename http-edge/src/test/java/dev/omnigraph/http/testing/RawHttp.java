package dev.omnigraph.http.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for what a client library would hide: keep-alive reuse, half-sent requests,
 * malformed URIs, idle connections. Every read is bounded by the socket timeout, so a request the server never
 * answers fails the test with {@link SocketTimeoutException} instead of hanging it. Every response of 400 or more
 * goes through {@link ErrorBodyAudit}.
 */
public final class RawHttp implements AutoCloseable {
    /** A response as read off the wire; header names are lower case. */
    public record Response(int status, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Connects with every read bounded by {@code readTimeout}. */
    public static RawHttp connect(String host, int port, Duration readTimeout) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), (int) Duration.ofSeconds(10).toMillis());
        socket.setSoTimeout((int) readTimeout.toMillis());
        socket.setTcpNoDelay(true);
        return new RawHttp(socket);
    }

    /** A request with a {@code Content-Length} body (or none when {@code body} is null). */
    public static String request(String method, String target, String contentType, String body) {
        StringBuilder text = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: localhost\r\n");
        if (contentType != null) text.append("Content-Type: ").append(contentType).append("\r\n");
        if (body != null) {
            text.append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
        }
        text.append("\r\n");
        if (body != null) text.append(body);
        return text.toString();
    }

    public RawHttp write(String text) throws IOException {
        return write(text.getBytes(StandardCharsets.UTF_8));
    }

    public RawHttp write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Sends one request and reads its response. */
    public Response exchange(String request) throws IOException {
        write(request);
        return read();
    }

    /** Reads one whole response (Content-Length or chunked body). */
    public Response read() throws IOException {
        String statusLine = line();
        if (statusLine == null) throw new SocketException("the server closed the connection before a response");
        String[] parts = statusLine.split(" ", 3);
        int status = Integer.parseInt(parts[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String header = line(); header != null && !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            headers.put(header.substring(0, colon).strip().toLowerCase(Locale.ROOT), header.substring(colon + 1).strip());
        }
        byte[] body;
        if (status / 100 == 1) {
            body = new byte[0]; // an interim answer (100 Continue) has no body
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = chunked();
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else {
            body = in.readAllBytes();
        }
        Response response = new Response(status, headers, new String(body, StandardCharsets.UTF_8));
        if (status >= 400) ErrorBodyAudit.check(status, response.body());
        return response;
    }

    /**
     * Waits for the server to close the connection: true when a read sees end-of-stream (or a reset), false when
     * the socket timeout passes first. Any bytes the server sends before closing are skipped.
     */
    public boolean awaitClosed() throws IOException {
        try {
            byte[] sink = new byte[4096];
            while (in.read(sink) >= 0) {
                // Keep reading until the close.
            }
            return true;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    private byte[] chunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line();
            if (size == null) throw new SocketException("connection closed inside a chunked body");
            int length = Integer.parseInt(size.split(";", 2)[0].strip(), 16);
            if (length == 0) {
                for (String trailer = line(); trailer != null && !trailer.isEmpty(); trailer = line()) {
                    // Trailers are ignored.
                }
                return body.toByteArray();
            }
            body.write(in.readNBytes(length));
            line();
        }
    }

    /** One CRLF-terminated line, or null at end of stream. */
    private String line() throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                byte[] bytes = text.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
            }
            text.write(b);
        }
        return text.size() == 0 ? null : text.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
