package dev.omnigraph.engine.schema;

import dev.omnigraph.engine.schema.Ast.AnnotationNode;
import dev.omnigraph.engine.schema.Ast.CArg;
import dev.omnigraph.engine.schema.Ast.ConstraintNode;
import dev.omnigraph.engine.schema.Ast.Decl;
import dev.omnigraph.engine.schema.Ast.EdgeDecl;
import dev.omnigraph.engine.schema.Ast.InterfaceDecl;
import dev.omnigraph.engine.schema.Ast.Kwarg;
import dev.omnigraph.engine.schema.Ast.LitKind;
import dev.omnigraph.engine.schema.Ast.NameRef;
import dev.omnigraph.engine.schema.Ast.NodeDecl;
import dev.omnigraph.engine.schema.Ast.PropDecl;
import dev.omnigraph.engine.schema.Token.Pos;
import dev.omnigraph.storage.error.ParseError;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Semantic checks of languages.md §2 over the syntax tree, producing the immutable {@link CompiledSchema}.
 * Every error carries the position of the offending token and the declaration that contains it.
 */
final class Checker {
    static final Set<String> LANCE_VIRTUAL_COLUMNS = Set.of(
            "_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version", "_row_last_updated_at_version");
    /** Annotations with one string argument and at most one occurrence per element. */
    private static final Set<String> STRING_ANNOTATIONS = Set.of("description", "instruction", "rename_from");

    private enum Owner { INTERFACE, NODE, EDGE }

    private final Map<String, Decl> declsByName = new HashMap<>();
    private final Map<String, InterfaceType> interfaces = new HashMap<>();
    /** Property-level @key/@unique/@index of each interface, re-applied to every implementing node. */
    private final Map<String, List<Seed>> interfaceSeeds = new HashMap<>();

    /** A constraint before validation: where it was written and by which declaration. */
    private record Seed(ConstraintNode node, String subject) {}

    /** A property being assembled for a node (interface copies merge with direct declarations). */
    private static final class PropBuilder {
        final String name;
        final PropertyType type;
        final boolean nullable;
        final List<Annotation> annotations = new ArrayList<>();
        final List<String> origins = new ArrayList<>();
        boolean declaredDirectly;

        PropBuilder(String name, PropertyType type, boolean nullable) {
            this.name = name;
            this.type = type;
            this.nullable = nullable;
        }

        Property build() {
            return new Property(name, type, nullable, annotations, declaredDirectly, origins);
        }
    }

    CompiledSchema check(Ast.SchemaFile file) {
        for (Decl decl : file.decls()) {
            Decl previous = declsByName.putIfAbsent(decl.name(), decl);
            if (previous != null) {
                throw error(decl.namePos(), decl.subject(), "duplicate type name '" + decl.name()
                        + "' (already declared as " + previous.keyword() + " at line " + previous.namePos().line() + ")");
            }
        }
        // Interfaces first: nodes copy their (already checked) properties regardless of declaration order.
        List<InterfaceType> ifaceList = new ArrayList<>();
        for (Decl decl : file.decls()) {
            if (decl instanceof InterfaceDecl d) {
                InterfaceType t = checkInterface(d);
                interfaces.put(t.name(), t);
                ifaceList.add(t);
            }
        }
        List<NodeType> nodes = new ArrayList<>();
        List<EdgeType> edges = new ArrayList<>();
        for (Decl decl : file.decls()) {
            if (decl instanceof NodeDecl d) nodes.add(checkNode(d));
            else if (decl instanceof EdgeDecl d) edges.add(checkEdge(d));
        }
        return new CompiledSchema(ifaceList, nodes, edges);
    }

    // ---- declarations ----

    private InterfaceType checkInterface(InterfaceDecl d) {
        String subject = d.subject();
        Map<String, PropBuilder> props = new LinkedHashMap<>();
        Map<String, Pos> firstSeen = new HashMap<>();
        List<Seed> seeds = new ArrayList<>();
        for (PropDecl p : d.props()) {
            rejectDuplicate(firstSeen, p, subject);
            PropBuilder b = checkProperty(p, Owner.INTERFACE, subject, seeds);
            b.declaredDirectly = true;
            props.put(p.name(), b);
        }
        List<Property> built = props.values().stream().map(PropBuilder::build).toList();
        checkEmbeds(d.props(), built, subject, "interface " + d.name());
        // Key rules are local to the property, so report them here where the annotation is written.
        for (Seed s : seeds) {
            if (s.node().keyword().equals("key")) checkKeyTarget(props.get(((Ast.NameArg) s.node().args().get(0)).name()), s);
        }
        interfaceSeeds.put(d.name(), seeds);
        return new InterfaceType(d.name(), built);
    }

    private NodeType checkNode(NodeDecl d) {
        String subject = d.subject();
        List<Annotation> annotations = checkTypeAnnotations(d.annotations(), subject);
        Map<String, PropBuilder> props = new LinkedHashMap<>();
        List<Seed> inherited = new ArrayList<>();
        List<String> implemented = new ArrayList<>();
        for (NameRef ref : d.implementsTypes()) {
            if (implemented.contains(ref.name()))
                throw error(ref.pos(), subject, "interface '" + ref.name() + "' is listed twice in implements");
            Decl target = declsByName.get(ref.name());
            if (target == null) throw error(ref.pos(), subject, "unknown interface '" + ref.name() + "' in implements");
            if (!(target instanceof InterfaceDecl))
                throw error(ref.pos(), subject, "'" + ref.name() + "' is a " + target.keyword() + ", not an interface");
            implemented.add(ref.name());
            for (Property ip : interfaces.get(ref.name()).properties()) {
                PropBuilder existing = props.get(ip.name());
                if (existing == null) {
                    PropBuilder b = new PropBuilder(ip.name(), ip.type(), ip.nullable());
                    b.annotations.addAll(ip.annotations());
                    b.origins.add(ref.name());
                    props.put(ip.name(), b);
                } else if (!sameType(existing.type, existing.nullable, ip)) {
                    throw error(ref.pos(), subject, "interface " + ref.name() + " declares '" + ip.name() + ": "
                            + ip.typeSpelling() + "', which conflicts with '" + ip.name() + ": "
                            + spelling(existing.type, existing.nullable) + "' from interface " + existing.origins.get(0));
                } else {
                    existing.origins.add(ref.name());
                }
            }
            // Inherited constraints are reported at the implements reference that brought them in.
            for (Seed s : interfaceSeeds.get(ref.name())) {
                ConstraintNode moved = new ConstraintNode(s.node().keyword(), ref.pos(),
                        s.node().args().stream().map(a -> (CArg) new Ast.NameArg(((Ast.NameArg) a).name(), ref.pos())).toList());
                inherited.add(new Seed(moved, subject));
            }
        }
        List<Seed> own = new ArrayList<>();
        Map<String, Pos> firstSeen = new HashMap<>();
        for (PropDecl p : d.props()) {
            rejectDuplicate(firstSeen, p, subject);
            PropBuilder b = checkProperty(p, Owner.NODE, subject, own);
            PropBuilder existing = props.get(p.name());
            if (existing == null) {
                b.declaredDirectly = true;
                props.put(p.name(), b);
            } else if (!sameType(existing.type, existing.nullable, b.build())) {
                throw error(p.typePos(), subject + "." + p.name(), "property '" + p.name() + ": "
                        + spelling(b.type, b.nullable) + "' conflicts with '" + p.name() + ": "
                        + spelling(existing.type, existing.nullable) + "' from interface " + existing.origins.get(0));
            } else {
                existing.declaredDirectly = true; // redeclaring an inherited property with the same type is allowed
                existing.annotations.addAll(b.annotations);
            }
        }
        for (ConstraintNode c : d.constraints()) own.add(new Seed(c, subject));
        own.sort(Comparator.comparingInt((Seed s) -> s.node().pos().line()).thenComparingInt(s -> s.node().pos().column()));
        List<Seed> all = new ArrayList<>(inherited);
        all.addAll(own);

        List<Property> built = props.values().stream().map(PropBuilder::build).toList();
        checkEmbeds(d.props(), built, subject, subject);
        List<Constraint> constraints = new ArrayList<>();
        boolean haveKey = false;
        for (Seed s : all) {
            Constraint c = checkConstraint(s, props, Owner.NODE);
            if (c instanceof Constraint.Key) {
                if (haveKey) throw error(s.node().pos(), s.subject(), "a node may declare at most one @key");
                haveKey = true;
            }
            constraints.add(c);
        }
        return new NodeType(d.name(), annotations, implemented, built, constraints);
    }

    private EdgeType checkEdge(EdgeDecl d) {
        String subject = d.subject();
        checkEndpoint(d.from(), subject);
        checkEndpoint(d.to(), subject);
        Cardinality card = Cardinality.DEFAULT;
        if (d.card() != null) {
            Ast.CardNode c = d.card();
            if (c.max() != null && c.max() < c.min())
                throw error(c.maxPos(), subject, "@card minimum " + c.min() + " is greater than maximum " + c.max());
            card = new Cardinality(c.min(), c.max() == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(c.max()));
        }
        List<Annotation> annotations = checkTypeAnnotations(d.annotations(), subject);
        Map<String, PropBuilder> props = new LinkedHashMap<>();
        Map<String, Pos> firstSeen = new HashMap<>();
        List<Seed> seeds = new ArrayList<>();
        for (PropDecl p : d.props()) {
            rejectDuplicate(firstSeen, p, subject);
            PropBuilder b = checkProperty(p, Owner.EDGE, subject, seeds);
            b.declaredDirectly = true;
            props.put(p.name(), b);
        }
        for (ConstraintNode c : d.constraints()) seeds.add(new Seed(c, subject));
        seeds.sort(Comparator.comparingInt((Seed s) -> s.node().pos().line()).thenComparingInt(s -> s.node().pos().column()));
        List<Constraint> constraints = new ArrayList<>();
        for (Seed s : seeds) constraints.add(checkConstraint(s, props, Owner.EDGE));
        List<Property> built = props.values().stream().map(PropBuilder::build).toList();
        return new EdgeType(d.name(), d.from().name(), d.to().name(), card, annotations, built, constraints);
    }

    private void checkEndpoint(NameRef ref, String subject) {
        Decl target = declsByName.get(ref.name());
        if (target == null) throw error(ref.pos(), subject, "unknown node type '" + ref.name() + "' in edge endpoint");
        if (!(target instanceof NodeDecl))
            throw error(ref.pos(), subject, "edge endpoints must be node types; '" + ref.name() + "' is an " + target.keyword());
    }

    // ---- properties and annotations ----

    private void rejectDuplicate(Map<String, Pos> firstSeen, PropDecl p, String subject) {
        Pos first = firstSeen.putIfAbsent(p.name(), p.namePos());
        if (first != null)
            throw error(p.namePos(), subject + "." + p.name(),
                    "duplicate property '" + p.name() + "' (first declared at line " + first.line() + ")");
    }

    /** Checks one declared property; bare @key/@unique/@index are desugared into {@code seeds}. */
    private PropBuilder checkProperty(PropDecl p, Owner owner, String ownerSubject, List<Seed> seeds) {
        String subject = ownerSubject + "." + p.name();
        if (p.name().equals("id"))
            throw error(p.namePos(), subject, "'id' is a reserved property name (the implicit id column)");
        if (owner == Owner.EDGE && (p.name().equals("src") || p.name().equals("dst")))
            throw error(p.namePos(), subject, "'" + p.name() + "' is a reserved property name on edges (the implicit endpoint column)");
        if (LANCE_VIRTUAL_COLUMNS.contains(p.name()))
            throw error(p.namePos(), subject, "'" + p.name() + "' is a reserved name (Lance virtual column)");
        PropBuilder b = new PropBuilder(p.name(), p.type(), p.nullable());
        Set<String> singles = new HashSet<>();
        for (AnnotationNode a : p.annotations()) {
            switch (a.name()) {
                case "key", "unique", "index" -> {
                    if (a.name().equals("key") && owner == Owner.EDGE)
                        throw error(a.pos(), subject, "@key is not allowed on edges (edges have no key)");
                    seeds.add(new Seed(new ConstraintNode(a.name(), a.pos(), List.of(new Ast.NameArg(p.name(), a.pos()))), subject));
                    continue; // desugared, not kept as metadata
                }
                case "range", "check" -> throw error(a.pos(), subject, "@" + a.name()
                        + " needs arguments: write @" + a.name() + "(" + p.name() + ", …) in the type body");
                case "instruction" -> throw error(a.pos(), subject, "@instruction is only allowed on node and edge types");
                case "embed" -> {
                    if (owner == Owner.EDGE) throw error(a.pos(), subject, "@embed is not allowed on edges");
                    if (!(p.type() instanceof PropertyType.VectorOf))
                        throw error(a.pos(), subject, "@embed is only allowed on Vector properties; '" + p.name()
                                + "' is " + p.type().spelling());
                    if (a.value() == null || a.value().kind() != LitKind.STRING)
                        throw error(a.pos(), subject, "@embed needs the source property name as a string: @embed(\"source\")");
                    for (Kwarg k : a.kwargs()) {
                        if (!k.name().equals("model"))
                            throw error(k.pos(), subject, "@embed accepts only the keyword argument 'model', found '" + k.name() + "'");
                        if (k.value().kind() != LitKind.STRING)
                            throw error(k.value().pos(), subject, "@embed model must be a string");
                    }
                }
                default -> { }
            }
            b.annotations.add(toAnnotation(a, subject, singles));
        }
        return b;
    }

    private List<Annotation> checkTypeAnnotations(List<AnnotationNode> nodes, String subject) {
        List<Annotation> out = new ArrayList<>();
        Set<String> singles = new HashSet<>();
        for (AnnotationNode a : nodes) {
            switch (a.name()) {
                case "key", "unique", "index", "range", "check" -> throw error(a.pos(), subject, "@" + a.name()
                        + " on a type needs property arguments: write @" + a.name() + "(…) inside the body");
                case "embed" -> throw error(a.pos(), subject, "@embed belongs on a Vector property, not on a type");
                default -> { }
            }
            out.add(toAnnotation(a, subject, singles));
        }
        return out;
    }

    /** Validates the argument shape shared by all annotations and converts to the model. */
    private Annotation toAnnotation(AnnotationNode a, String subject, Set<String> singles) {
        boolean single = STRING_ANNOTATIONS.contains(a.name()) || a.name().equals("embed");
        if (single && !singles.add(a.name())) throw error(a.pos(), subject, "duplicate @" + a.name());
        if (STRING_ANNOTATIONS.contains(a.name())) {
            if (a.value() == null || a.value().kind() != LitKind.STRING || !a.kwargs().isEmpty())
                throw error(a.pos(), subject, "@" + a.name() + " takes exactly one string argument");
            if (a.name().equals("rename_from") && a.value().text().isBlank())
                throw error(a.value().pos(), subject, "@rename_from needs a non-empty name");
        }
        Map<String, String> kwargs = new TreeMap<>();
        for (Kwarg k : a.kwargs()) {
            if (kwargs.put(k.name(), k.value().text()) != null)
                throw error(k.pos(), subject, "duplicate keyword argument '" + k.name() + "' in @" + a.name());
        }
        return new Annotation(a.name(), a.value() == null ? null : a.value().text(), kwargs);
    }

    private void checkEmbeds(List<PropDecl> decls, List<Property> props, String ownerSubject, String ownerLabel) {
        for (PropDecl p : decls) {
            for (AnnotationNode a : p.annotations()) {
                if (!a.name().equals("embed")) continue;
                String source = a.value().text();
                Property src = props.stream().filter(q -> q.name().equals(source)).findFirst().orElseThrow(() ->
                        error(a.value().pos(), ownerSubject + "." + p.name(),
                                "@embed source '" + source + "' is not a property of " + ownerLabel));
                if (!(src.type() instanceof PropertyType.Scalar s && s.kind() == ScalarKind.STRING))
                    throw error(a.value().pos(), ownerSubject + "." + p.name(),
                            "@embed source '" + source + "' must be a String property, found " + src.typeSpelling());
            }
        }
    }

    // ---- constraints ----

    private Constraint checkConstraint(Seed seed, Map<String, PropBuilder> props, Owner owner) {
        ConstraintNode c = seed.node();
        String kw = c.keyword();
        if (owner == Owner.EDGE && !kw.equals("unique") && !kw.equals("index"))
            throw error(c.pos(), seed.subject(), "edge bodies accept only @unique and @index constraints, found @" + kw);
        return switch (kw) {
            case "key" -> {
                List<String> names = names(seed, props, owner);
                for (String n : names) checkKeyTarget(props.get(n), new Seed(c, seed.subject()));
                yield new Constraint.Key(names);
            }
            case "unique" -> new Constraint.Unique(names(seed, props, owner));
            case "index" -> new Constraint.Index(names(seed, props, owner));
            case "range" -> checkRange(seed, props);
            case "check" -> checkRegex(seed, props);
            default -> throw new IllegalStateException(kw);
        };
    }

    private List<String> names(Seed seed, Map<String, PropBuilder> props, Owner owner) {
        List<String> names = new ArrayList<>();
        String kw = seed.node().keyword();
        for (CArg arg : seed.node().args()) {
            if (!(arg instanceof Ast.NameArg n))
                throw error(arg.pos(), seed.subject(), "@" + kw + " arguments must be property names");
            boolean system = owner == Owner.EDGE && (n.name().equals("src") || n.name().equals("dst"));
            if (!system && !props.containsKey(n.name()))
                throw error(n.pos(), seed.subject(), "unknown property '" + n.name() + "' in @" + kw);
            if (names.contains(n.name()))
                throw error(n.pos(), seed.subject(), "property '" + n.name() + "' appears twice in @" + kw);
            if (!system && isBlob(props.get(n.name()).type))
                throw error(n.pos(), seed.subject(), "@" + kw + " is not allowed on Blob property '" + n.name() + "'");
            names.add(n.name());
        }
        return names;
    }

    private static boolean isBlob(PropertyType t) {
        return t instanceof PropertyType.Scalar s && s.kind() == ScalarKind.BLOB
                || t instanceof PropertyType.ListOf l && l.element() == ScalarKind.BLOB;
    }

    private void checkKeyTarget(PropBuilder p, Seed seed) {
        Pos pos = seed.node().args().stream()
                .filter(a -> a instanceof Ast.NameArg n && n.name().equals(p.name)).findFirst()
                .map(CArg::pos).orElse(seed.node().pos());
        if (p.nullable) throw error(pos, seed.subject(), "@key property '" + p.name + "' must not be nullable");
        String kind = p.type instanceof PropertyType.ListOf ? "a list"
                : p.type instanceof PropertyType.VectorOf ? "a Vector" : isBlob(p.type) ? "a Blob" : null;
        if (kind != null) throw error(pos, seed.subject(), "@key property '" + p.name + "' cannot be " + kind + " (" + p.type.spelling() + ")");
    }

    private Constraint checkRange(Seed seed, Map<String, PropBuilder> props) {
        List<CArg> args = seed.node().args();
        if (args.size() != 2 || !(args.get(0) instanceof Ast.NameArg n) || !(args.get(1) instanceof Ast.RangeArg r))
            throw error(seed.node().pos(), seed.subject(), "@range expects (property, lo..hi)");
        PropBuilder p = props.get(n.name());
        if (p == null) throw error(n.pos(), seed.subject(), "unknown property '" + n.name() + "' in @range");
        if (!(p.type instanceof PropertyType.Scalar s && s.kind().isNumeric()))
            throw error(n.pos(), seed.subject(), "@range needs a numeric property; '" + n.name() + "' is " + p.type.spelling());
        boolean integer = s.kind().isInteger();
        for (RangeBound b : new RangeBound[] {r.lo(), r.hi()}) {
            if (integer && b instanceof RangeBound.FloatBound f)
                throw error(r.pos(), seed.subject(), "@range bound " + f.value() + " is not an integer, but '"
                        + n.name() + "' is " + s.kind().spelling());
        }
        if (r.lo() != null && r.hi() != null && r.lo().asDouble() > r.hi().asDouble())
            throw error(r.pos(), seed.subject(), "@range lower bound is greater than the upper bound");
        return new Constraint.Range(n.name(), r.lo(), r.hi());
    }

    private Constraint checkRegex(Seed seed, Map<String, PropBuilder> props) {
        List<CArg> args = seed.node().args();
        if (args.size() != 2 || !(args.get(0) instanceof Ast.NameArg n)
                || !(args.get(1) instanceof Ast.LitArg l && l.lit().kind() == LitKind.STRING))
            throw error(seed.node().pos(), seed.subject(), "@check expects (property, \"regex\")");
        PropBuilder p = props.get(n.name());
        if (p == null) throw error(n.pos(), seed.subject(), "unknown property '" + n.name() + "' in @check");
        if (!(p.type instanceof PropertyType.Scalar s && s.kind() == ScalarKind.STRING))
            throw error(n.pos(), seed.subject(), "@check needs a String property; '" + n.name() + "' is " + p.type.spelling());
        String pattern = l.lit().text();
        try {
            java.util.regex.Pattern.compile(pattern);
        } catch (java.util.regex.PatternSyntaxException e) {
            throw error(l.pos(), seed.subject(), "invalid regular expression in @check: " + e.getDescription());
        }
        return new Constraint.Check(n.name(), pattern);
    }

    // ---- helpers ----

    private static boolean sameType(PropertyType type, boolean nullable, Property other) {
        return type.equals(other.type()) && nullable == other.nullable();
    }

    private static String spelling(PropertyType type, boolean nullable) {
        return type.spelling() + (nullable ? "?" : "");
    }

    private static ParseError error(Pos pos, String subject, String message) {
        return new ParseError(Lexer.SOURCE, pos.line(), pos.column(), subject, message);
    }
}
