package release

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestArchiveName(t *testing.T) {
	for _, tc := range []struct{ v, os, arch, want string }{
		{"v1.2.3", "linux", "amd64", "fullsend_1.2.3_linux_amd64.tar.gz"},
		{"1.2.3", "darwin", "arm64", "fullsend_1.2.3_darwin_arm64.tar.gz"},
	} {
		if got := ArchiveName(tc.v, tc.os, tc.arch); got != tc.want {
			t.Errorf("ArchiveName(%q, %q, %q) = %q, want %q", tc.v, tc.os, tc.arch, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name    string
		r       Request
		own     string
		want    Pin
		wantErr string
	}{
		{"own release version", Request{}, "v1.4.0", Pin{Download, "v1.4.0", DefaultBaseURL}, ""},
		{"explicit version wins", Request{Version: "v2.0.0"}, "v1.4.0", Pin{Download, "v2.0.0", DefaultBaseURL}, ""},
		{"devel needs a version", Request{}, "(devel)", Pin{}, "--version vX.Y.Z"},
		{"pseudo version is not a release", Request{}, "v0.0.0-20260101000000-abcdef123456", Pin{}, "--install source"},
		{"devel with explicit version", Request{Version: "v1.0.0"}, "(devel)", Pin{Download, "v1.0.0", DefaultBaseURL}, ""},
		{"release mode rejects a commit", Request{Version: "abc123"}, "(devel)", Pin{}, "release tag vX.Y.Z"},
		{"source with a commit", Request{Mode: "source", Version: sha}, "(devel)", Pin{Source, sha, ""}, ""},
		{"source with a tag", Request{Mode: "source", Version: "v1.2.3"}, "(devel)", Pin{Source, "v1.2.3", ""}, ""},
		{"source refuses a branch", Request{Mode: "source", Version: "main"}, "(devel)", Pin{}, "release tag vX.Y.Z or a full 40-hex commit SHA"},
		{"source refuses a short sha", Request{Mode: "source", Version: "abc123"}, "(devel)", Pin{}, "40-hex commit SHA"},
		{"source refuses an upper-case sha", Request{Mode: "source", Version: strings.ToUpper(sha)}, "(devel)", Pin{}, "40-hex"},
		{"source refuses a 41-hex sha", Request{Mode: "source", Version: sha + "0"}, "(devel)", Pin{}, "40-hex"},
		{"source refuses a module query", Request{Mode: "source", Version: "latest"}, "(devel)", Pin{}, "40-hex"},
		{"source refuses a pre-release tag", Request{Mode: "source", Version: "v1.2.3-rc.1"}, "(devel)", Pin{}, "40-hex"},
		{"source defaults to own release", Request{Mode: "source"}, "v1.4.0", Pin{Source, "v1.4.0", ""}, ""},
		{"source devel without version", Request{Mode: "source"}, "(devel)", Pin{}, "pass --version"},
		{"source rejects shell text", Request{Mode: "source", Version: "v1;rm"}, "", Pin{}, "--version"},
		{"source rejects a release url", Request{Mode: "source", Version: "v1.0.0", BaseURL: "https://x"}, "", Pin{}, "--release-url"},
		{"unknown mode", Request{Mode: "docker", Version: "v1.0.0"}, "", Pin{}, `--install "docker"`},
		{"mirror url", Request{Version: "v1.0.0", BaseURL: "https://mirror.example/fs"}, "", Pin{Download, "v1.0.0", "https://mirror.example/fs"}, ""},
		{"loopback http", Request{Version: "v1.0.0", BaseURL: "http://127.0.0.1:8080/r"}, "", Pin{Download, "v1.0.0", "http://127.0.0.1:8080/r"}, ""},
		{"plain http", Request{Version: "v1.0.0", BaseURL: "http://mirror.example/fs"}, "", Pin{}, "want https"},
		{"credentials in url", Request{Version: "v1.0.0", BaseURL: "https://u:p@mirror.example"}, "", Pin{}, "without credentials"},
		{"quote in url", Request{Version: "v1.0.0", BaseURL: "https://m.example/\"x"}, "", Pin{}, "--release-url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolve(tc.r, tc.own)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestScriptReadsOnlyItsVariables(t *testing.T) {
	for _, v := range []string{"FULLSEND_VERSION", "FULLSEND_RELEASE_URL", "FULLSEND_BIN_DIR", ChecksumsFile} {
		if !strings.Contains(Script, v) {
			t.Errorf("install script does not use %s", v)
		}
	}
	if strings.Contains(Script, "${{") || strings.Contains(Script, "go install") {
		t.Error("install script holds an expression or a Go build")
	}
}

// The release names its assets as the install step of generated CI
// expects: .goreleaser.yaml's archive name_template renders to
// ArchiveName, as a tar.gz with the binary at the top level, and its
// checksums file is ChecksumsFile in sha256.
func TestGoReleaserNamesTheAssets(t *testing.T) {
	b, err := os.ReadFile("../../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		ProjectName string `yaml:"project_name"`
		Archives    []struct {
			Formats         []string `yaml:"formats"`
			NameTemplate    string   `yaml:"name_template"`
			WrapInDirectory bool     `yaml:"wrap_in_directory"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Archives) != 1 {
		t.Fatalf("%d archives in .goreleaser.yaml, want 1", len(cfg.Archives))
	}
	a := cfg.Archives[0]
	// The name_template with GoReleaser's fields filled in as it fills them
	// (Version without the leading v).
	name := strings.NewReplacer("{{ .ProjectName }}", cfg.ProjectName, "{{ .Version }}", "1.2.3",
		"{{ .Os }}", "linux", "{{ .Arch }}", "arm64").Replace(a.NameTemplate)
	if got, want := name+".tar.gz", ArchiveName("v1.2.3", "linux", "arm64"); got != want || !slices.Equal(a.Formats, []string{"tar.gz"}) || a.WrapInDirectory {
		t.Errorf("archive %q (formats %v, wrapped %v), want %q, tar.gz, unwrapped", got, a.Formats, a.WrapInDirectory, want)
	}
	if cfg.Checksum.NameTemplate != ChecksumsFile || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v, want %s in sha256", cfg.Checksum, ChecksumsFile)
	}
}
