package dev.omnigraph.engine.lex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lexical rules shared by {@code .pg} and {@code .gq}, through a toy vocabulary whose kinds are strings. */
class SourceCursorTest {
    /** Symbol kinds are their descriptions: {@code '{'}, {@code '-'}, {@code '->'}, {@code '..'}. */
    private static final Vocabulary<String> TOY = new Vocabulary<>("EOF", "TYPE", "IDENT", "INT", "FLOAT", "STRING",
            Vocabulary.quotedSymbols(new String[] {"'{'", "'-'", "'->'", "'..'", "integer", "''"}, d -> d));

    /** Tokens as "KIND text @line:column", up to end of input or the first character no shared rule scans. */
    private static List<String> scan(String src) {
        SourceCursor in = new SourceCursor(src);
        List<String> out = new ArrayList<>();
        while (true) {
            String t = in.next(TOY, (kind, text, line, column) -> kind + " " + text + " @" + line + ":" + column);
            if (t == null) {
                out.add("STOP '" + in.currentCodePoint() + "' @" + in.line() + ":" + in.column());
                return out;
            }
            out.add(t);
            if (t.startsWith("EOF")) return out;
        }
    }

    private static void assertLexError(String src, int line, int column, String message) {
        assertThatThrownBy(() -> scan(src)).isInstanceOfSatisfying(LexError.class, e -> {
            assertThat(e.getMessage()).isEqualTo(message);
            assertThat(e.line()).as("line").isEqualTo(line);
            assertThat(e.column()).as("column").isEqualTo(column);
        });
    }

    @Test
    void wordsNumbersAndLongestSymbols() {
        assertThat(TOY.symbols()).containsOnlyKeys("{", "-", "->", "..");
        assertThat(scan("Person name_2 _x 42 3.25 1..5 ->-{ 7.x")).containsExactly(
                "TYPE Person @1:1", "IDENT name_2 @1:8", "IDENT _x @1:15", "INT 42 @1:18", "FLOAT 3.25 @1:21",
                "INT 1 @1:26", "'..' .. @1:27", "INT 5 @1:29", "'->' -> @1:31", "'-' - @1:33", "'{' { @1:34",
                "INT 7 @1:36", "STOP '.' @1:37");
    }

    @Test
    void commentsAndWhitespaceAreSkipped() {
        assertThat(scan("a // line comment */\n\t b /* block\n /* not nested */ c\r\n/**/d//")).containsExactly(
                "IDENT a @1:1", "IDENT b @2:3", "IDENT c @3:19", "IDENT d @4:5", "EOF  @4:8");
        assertThat(scan("")).containsExactly("EOF  @1:1");
    }

    @Test
    void stringEscapesAreDecoded() {
        assertThat(scan("\"q\\\" b\\\\ n\\n r\\r t\\t /* x */\" z")).containsExactly(
                "STRING q\" b\\ n\n r\r t\t /* x */ @1:1", "IDENT z @1:31", "EOF  @1:32");
        assertThat(scan("\"line\nbreak\" x")).containsExactly(
                "STRING line\nbreak @1:1", "IDENT x @2:8", "EOF  @2:9");
    }

    @Test
    void invalidEscapeIsReportedAtItsBackslash() {
        assertLexError("x \"ab\\q\"", 1, 6, "invalid escape '\\q' in string literal (allowed: \\\" \\\\ \\n \\r \\t)");
        assertLexError("\"\\\uD83D\uDE00\"", 1, 2,
                "invalid escape '\\\uD83D\uDE00' in string literal (allowed: \\\" \\\\ \\n \\r \\t)");
    }

    @Test
    void unterminatedStringIsReportedAtItsOpeningQuote() {
        assertLexError("a\n  \"abc", 2, 3, "unterminated string literal");
        assertLexError("a\n  \"abc\\", 2, 3, "unterminated string literal");
        assertLexError("\"x\\\"", 1, 1, "unterminated string literal");
    }

    @Test
    void unterminatedBlockCommentIsReportedAtItsStart() {
        assertLexError("a\n b /* never */ c /* closed *", 2, 18, "unterminated block comment");
        assertLexError("/*/", 1, 1, "unterminated block comment");
    }

    @Test
    void aSurrogatePairIsOneColumn() {
        // U+1F600 is two chars in Java but one column; the BMP 'é' is one char and one column.
        assertThat(scan("\"\uD83D\uDE00\uD83D\uDE00\" é")).containsExactly(
                "STRING \uD83D\uDE00\uD83D\uDE00 @1:1", "STOP 'é' @1:6");
        assertThat(scan("/* \uD83D\uDE00 */ x // \uD83D\uDE00\n\uD83D\uDE00")).containsExactly(
                "IDENT x @1:9", "STOP '\uD83D\uDE00' @2:1");
        assertLexError("\"\uD83D\uDE00\uD83D\uDE00\" \"", 1, 6, "unterminated string literal");
        assertLexError("/*\uD83D\uDE00*/ \"abc", 1, 7, "unterminated string literal");
    }

    @Test
    void nulAndUnpairedSurrogatesAreRefusedWhereTheCursorReachesThem() {
        String rule = " is not allowed; text must be valid Unicode without NUL";
        assertLexError("a \"b\\n\u0000\"", 1, 7, "a NUL character (U+0000)" + rule);
        assertLexError("a\n  \u0000 b", 2, 3, "a NUL character (U+0000)" + rule);
        assertLexError("// c\n/* \uD83D\uDE00 \uDE00\uDE00 */", 2, 6, "an unpaired surrogate (U+DE00)" + rule);
        assertLexError("\"x\uD800y\"", 1, 3, "an unpaired surrogate (U+D800)" + rule);
        assertLexError("x // \uDBFF", 1, 6, "an unpaired surrogate (U+DBFF)" + rule);
        // Text before the offending character still scans.
        SourceCursor in = new SourceCursor("ab \u0000");
        assertThat(in.word()).isEqualTo("ab");
        assertThatThrownBy(in::skipTrivia).isInstanceOf(LexError.class);
    }

    @Test
    void cursorPrimitives() {
        SourceCursor in = new SourceCursor("ab-c\nd");
        assertThat(in.peek()).isEqualTo('a');
        assertThat(in.peek(5)).isEqualTo('d');
        assertThat(in.peek(6)).isEqualTo('\0');
        assertThat(in.takeWhile(c -> SourceCursor.isWordPart(c) || c == '-')).isEqualTo("ab-c");
        assertThat(in.column()).isEqualTo(5);
        in.advance();
        assertThat(in.line()).isEqualTo(2);
        assertThat(in.column()).isEqualTo(1);
        assertThat(in.word()).isEqualTo("d");
        assertThat(in.atEnd()).isTrue();
        assertThat(in.word()).isEmpty();
    }
}
