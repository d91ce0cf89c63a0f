package dev.omnigraph.http.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import dev.omnigraph.storage.error.BadRequest;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * How {@code omnigraph serve} logs: {@code text} (the default: one line per event, as {@code logback.xml} sets it
 * up) or {@code json} (one JSON object per line, logback's own {@link JsonEncoder}: timestamp, level, thread,
 * logger, message and the event's key-value pairs, e.g. a request's {@code trace_id}), and how much of the
 * engine's own logging ({@code dev.omnigraph.*}) shows. Applied once, at start-up, before the server starts.
 */
record LogSettings(Format format, Level engineLevel) {
    /** The appender {@code logback.xml} declares on the root logger. */
    static final String APPENDER = "STDERR";

    enum Format { TEXT, JSON }

    /** {@code text}/{@code json} and a level name ({@code error}, {@code warn}, {@code info}, {@code debug}). */
    static LogSettings parse(String format, String level) {
        Format parsedFormat = switch (format.toLowerCase(Locale.ROOT)) {
            case "text" -> Format.TEXT;
            case "json" -> Format.JSON;
            default -> throw new BadRequest("--log-format takes text or json, got '" + format + "'");
        };
        Level parsedLevel = switch (level.toLowerCase(Locale.ROOT)) {
            case "error", "warn", "info", "debug", "trace" -> Level.toLevel(level);
            default -> throw new BadRequest("--log-level takes error, warn, info, debug or trace, got '" + level + "'");
        };
        return new LogSettings(parsedFormat, parsedLevel);
    }

    /**
     * Reconfigures the running logback context. Does nothing when another SLF4J backend is in use (an embedder's
     * class path): their logging is theirs to configure.
     */
    void apply() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        context.getLogger("dev.omnigraph").setLevel(engineLevel);
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Appender<ILoggingEvent> console = root.getAppender(APPENDER);
        if (console == null) {
            return; // a logback.xml of the embedder's own
        }
        if (format == Format.JSON) {
            root.detachAppender(console);
            console.stop();
            root.addAppender(jsonConsole(context));
        }
    }

    private static Appender<ILoggingEvent> jsonConsole(LoggerContext context) {
        JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(context);
        // What a log shipper needs, not logback's internals.
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithContext(false);
        encoder.setWithArguments(false);
        encoder.setWithMessage(false);
        encoder.setWithFormattedMessage(true);
        encoder.start();
        ConsoleAppender<ILoggingEvent> json = new ConsoleAppender<>();
        json.setContext(context);
        json.setName(APPENDER);
        json.setTarget("System.err");
        json.setEncoder(encoder);
        json.start();
        return json;
    }
}
