package deploy

import (
	"bufio"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// deployDoc is the walkthrough whose commands these tests follow.
const deployDoc = "../docs/deploy.md"

// kubectlCommand is one `kubectl` command of the walkthrough, continuation
// lines joined and split into words.
type kubectlCommand struct {
	line  int
	words []string
}

// namespace is the value of -n/--namespace, or "" for the default.
func (c kubectlCommand) namespace() string {
	if v := argValue(c.words, "-n"); v != "" {
		return v
	}
	return argValue(c.words, "--namespace")
}

// verb is the words after kubectl and its namespace flag, up to the first
// flag: ["apply"], ["create", "secret", "generic", "NAME"].
func (c kubectlCommand) verb() []string {
	var out []string
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if w == "-n" || w == "--namespace" {
			i++
			continue
		}
		if strings.HasPrefix(w, "-") {
			break
		}
		out = append(out, w)
	}
	return out
}

// docCommands reads the kubectl commands of the Kubernetes section of
// docs/deploy.md's shell blocks, in the order written.
func docCommands(t *testing.T) []kubectlCommand {
	t.Helper()
	f, err := os.Open(deployDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []kubectlCommand
	var section string
	inBlock, pending, start := false, "", 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock && strings.TrimPrefix(line, "```") == "sh"
		case inBlock && strings.HasPrefix(section, "## 2. Kubernetes"):
			if pending == "" {
				start = n
			}
			text, _, _ := strings.Cut(line, "#")
			text = strings.TrimSuffix(strings.TrimSpace(text), "&")
			if cont, ok := strings.CutSuffix(text, "\\"); ok {
				pending += cont + " "
				continue
			}
			if words := strings.Fields(pending + text); len(words) > 0 && words[0] == "kubectl" {
				out = append(out, kubectlCommand{line: start, words: words})
			}
			pending = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no kubectl commands in the Kubernetes section", deployDoc)
	}
	return out
}

// documentedSecret is the Secret the walkthrough creates.
type documentedSecret struct {
	name, namespace string
	keys            []string // sorted
	line            int
}

// docSecret finds the one `kubectl create secret generic` command of the
// walkthrough and the keys it sets.
func docSecret(t *testing.T, cmds []kubectlCommand) documentedSecret {
	t.Helper()
	var found []documentedSecret
	for _, c := range cmds {
		v := c.verb()
		if len(v) != 4 || v[0] != "create" || v[1] != "secret" || v[2] != "generic" {
			continue
		}
		s := documentedSecret{name: v[3], namespace: c.namespace(), line: c.line}
		for _, w := range c.words {
			if kv, ok := strings.CutPrefix(w, "--from-literal="); ok {
				k, _, _ := strings.Cut(kv, "=")
				s.keys = append(s.keys, k)
			}
		}
		slices.Sort(s.keys)
		found = append(found, s)
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d `kubectl create secret generic` commands, want 1: %+v", deployDoc, len(found), found)
	}
	return found[0]
}

// The walkthrough's commands, followed in order, keep the credentials: the
// Secret is created before any overlay is applied, in the same namespace,
// and no applied overlay contains a Secret that would overwrite it (with
// empty values, as a template would). Every overlay is applied somewhere.
func TestDocumentedSequence(t *testing.T) {
	cmds := docCommands(t)
	secret := docSecret(t, cmds)
	applied := map[string]bool{}
	for _, c := range cmds {
		v := c.verb()
		if len(v) == 0 || v[0] != "apply" {
			continue
		}
		dir := argValue(c.words, "-k")
		if dir == "" {
			t.Errorf("%s:%d: %v applies something other than a kustomization", deployDoc, c.line, c.words)
			continue
		}
		if c.line < secret.line {
			t.Errorf("%s:%d: %s is applied before the Secret is created (line %d)", deployDoc, c.line, dir, secret.line)
		}
		if c.namespace() != secret.namespace {
			t.Errorf("%s:%d: applied in namespace %q, the Secret is in %q", deployDoc, c.line, c.namespace(), secret.namespace)
		}
		rel, ok := strings.CutPrefix(path.Clean(dir), "deploy/")
		if !ok || !slices.Contains(overlays, rel) {
			t.Errorf("%s:%d: apply -k %s: not one of the overlays %v", deployDoc, c.line, dir, overlays)
			continue
		}
		applied[rel] = true
		for _, o := range render(t, rel).objects {
			if s, ok := o.(*corev1.Secret); ok {
				t.Errorf("%s:%d: apply -k %s would overwrite Secret %q (created at line %d) with its own keys %v",
					deployDoc, c.line, dir, s.Name, secret.line, secretKeys(s))
			}
		}
	}
	for _, o := range overlays {
		if !applied[o] {
			t.Errorf("%s: the walkthrough never applies %s", deployDoc, o)
		}
	}
}

// secret.example.yaml, the manifest form of the Secret, matches the
// command the walkthrough runs.
func TestSecretExample(t *testing.T) {
	secret := docSecret(t, docCommands(t))
	b, err := os.ReadFile("kubernetes/secret.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := strict.Decode(b, nil, nil)
	if err != nil {
		t.Fatalf("secret.example.yaml does not decode strictly: %v", err)
	}
	s, ok := obj.(*corev1.Secret)
	if !ok || s.Name != secret.name || !slices.Equal(secretKeys(s), secret.keys) {
		t.Fatalf("secret.example.yaml: %T %s %v, want Secret %s with keys %v", obj, s.Name, secretKeys(s), secret.name, secret.keys)
	}
	for k, v := range s.StringData {
		if v != "" {
			t.Errorf("secret.example.yaml: %s has a value; the example holds none", k)
		}
	}
}
