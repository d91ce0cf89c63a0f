package dev.omnigraph.engine.schema;

import dev.omnigraph.engine.schema.Token.Pos;
import java.util.List;

/** Syntax tree of a {@code .pg} file; every node keeps the position the checker reports errors at. */
final class Ast {
    private Ast() {}

    record SchemaFile(List<Decl> decls) {}

    sealed interface Decl permits InterfaceDecl, NodeDecl, EdgeDecl {
        String name();

        Pos namePos();

        /** "interface", "node" or "edge". */
        String keyword();

        default String subject() {
            return keyword() + " " + name();
        }
    }

    record InterfaceDecl(String name, Pos namePos, List<PropDecl> props) implements Decl {
        @Override
        public String keyword() {
            return "interface";
        }
    }

    record NodeDecl(String name, Pos namePos, List<AnnotationNode> annotations, List<NameRef> implementsTypes,
                    List<PropDecl> props, List<ConstraintNode> constraints) implements Decl {
        @Override
        public String keyword() {
            return "node";
        }
    }

    record EdgeDecl(String name, Pos namePos, NameRef from, NameRef to, CardNode card,
                    List<AnnotationNode> annotations, List<PropDecl> props, List<ConstraintNode> constraints)
            implements Decl {
        @Override
        public String keyword() {
            return "edge";
        }
    }

    record NameRef(String name, Pos pos) {}

    /** {@code @card(min..max)}; {@code max} null = unbounded. */
    record CardNode(Pos pos, long min, Pos minPos, Long max, Pos maxPos) {}

    record PropDecl(String name, Pos namePos, PropertyType type, boolean nullable, Pos typePos,
                    List<AnnotationNode> annotations) {}

    enum LitKind { STRING, INTEGER, FLOAT, BOOL, IDENT }

    record Lit(LitKind kind, String text, Pos pos) {}

    record Kwarg(String name, Pos pos, Lit value) {}

    /** {@code @name[(value, k=v, …)]}; pos is that of the {@code @}. {@code value} null when bare. */
    record AnnotationNode(String name, Pos pos, Lit value, List<Kwarg> kwargs) {}

    /** {@code @key|unique|index|range|check(args)}; pos is that of the {@code @}. */
    record ConstraintNode(String keyword, Pos pos, List<CArg> args) {}

    sealed interface CArg permits NameArg, LitArg, RangeArg {
        Pos pos();
    }

    record NameArg(String name, Pos pos) implements CArg {}

    record LitArg(Lit lit) implements CArg {
        @Override
        public Pos pos() {
            return lit.pos();
        }
    }

    /** {@code lo..hi}; either end null when open. */
    record RangeArg(RangeBound lo, RangeBound hi, Pos pos) implements CArg {}
}
