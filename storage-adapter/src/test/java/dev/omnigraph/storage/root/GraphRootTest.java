package dev.omnigraph.storage.root;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GraphRootTest {
    private static final S3Settings SETTINGS = S3Settings.from(Map.of(), Optional.of("http://127.0.0.1:9000"),
            Optional.empty(), Optional.empty()).withCredentials(new S3Settings.Credentials("ak", "sk", Optional.empty()));

    private static GraphRoot parse(String text) {
        return GraphRoot.parse(text, () -> SETTINGS);
    }

    @Test
    void pathsAndFileUrisAreLocal() {
        assertThat(parse("/tmp/g")).isEqualTo(new GraphRoot.Local(Path.of("/tmp/g")));
        assertThat(parse("rel/g")).isEqualTo(new GraphRoot.Local(Path.of("rel/g")));
        assertThat(parse("file:///tmp/g")).isEqualTo(new GraphRoot.Local(Path.of("/tmp/g")));
        assertThat(parse("/tmp/g").lanceOptions()).isEmpty();
        assertThat(parse("/tmp/g").displayUri()).isEqualTo("file:///tmp/g");
    }

    @Test
    void s3UrisNameABucketAndPrefix() {
        GraphRoot.S3 root = (GraphRoot.S3) parse("s3://my-bucket/graphs/social/");
        assertThat(root.bucket()).isEqualTo("my-bucket");
        assertThat(root.prefix()).isEqualTo("graphs/social");
        assertThat(root.uri()).isEqualTo("s3://my-bucket/graphs/social");
        assertThat(root.key("__recovery/x")).isEqualTo("graphs/social/__recovery/x");
        assertThat(((GraphRoot.S3) parse("s3://my-bucket")).uri()).isEqualTo("s3://my-bucket");
        assertThat(root.lanceOptions()).containsEntry("aws_endpoint", "http://127.0.0.1:9000")
                .containsEntry("allow_http", "true").containsEntry("aws_virtual_hosted_style_request", "false")
                .containsEntry("aws_region", "us-east-1").containsEntry("aws_access_key_id", "ak");
        assertThat(SETTINGS.toString()).doesNotContain("sk");
    }

    @Test
    void badRootsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> parse("gs://b/p")).isInstanceOf(BadRequest.class).hasMessageContaining("scheme 'gs'");
        assertThatThrownBy(() -> parse("s3://Bad_Bucket/p")).isInstanceOf(BadRequest.class).hasMessageContaining("bucket");
        assertThatThrownBy(() -> parse("s3://b-1/a//b")).isInstanceOf(BadRequest.class).hasMessageContaining("segment");
        assertThatThrownBy(() -> parse("s3://b-1/../x")).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> parse("s3://key:secret@b-1/x")).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> parse("")).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> S3Settings.from(Map.of("OMNIGRAPH_S3_ENDPOINT", "ftp://x"), Optional.empty(),
                Optional.empty(), Optional.empty())).isInstanceOf(BadRequest.class).hasMessageContaining("endpoint");
    }

    @Test
    void environmentSettings() {
        S3Settings settings = S3Settings.from(Map.of("AWS_ENDPOINT_URL", "https://s3.example:9000",
                "AWS_DEFAULT_REGION", "eu-west-1", "OMNIGRAPH_S3_PATH_STYLE", "false"), Optional.empty(),
                Optional.empty(), Optional.empty());
        assertThat(settings.endpoint()).contains(URI.create("https://s3.example:9000"));
        assertThat(settings.region()).isEqualTo("eu-west-1");
        assertThat(settings.pathStyle()).isFalse();
        assertThat(S3Settings.from(Map.of(), Optional.empty(), Optional.of("ap-south-1"), Optional.empty()).pathStyle())
                .isFalse();
    }
}
