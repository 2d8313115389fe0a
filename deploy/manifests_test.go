package deploy

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fullsend-dev/fullsend/internal/cli"
)

func TestOverlays(t *testing.T) {
	tests := []struct {
		dir   string
		kind  string
		watch bool
	}{
		{"kubernetes/overlays/cronjob", "CronJob", false},
		{"kubernetes/overlays/watch", "Deployment", true},
	}
	if len(tests) != len(overlays) {
		t.Fatalf("overlays %v not all tested", overlays)
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.dir), func(t *testing.T) {
			r := render(t, tc.dir)
			ws := workloads(r)
			if len(ws) != 1 || !strings.HasPrefix(ws[0].name, tc.kind+"/") {
				t.Fatalf("workloads %v, want one %s", ws, tc.kind)
			}
			w := ws[0]
			if len(w.pod.Spec.Containers) != 1 {
				t.Fatalf("%s: %d containers, want 1", w.name, len(w.pod.Spec.Containers))
			}
			c := w.pod.Spec.Containers[0]
			if got := slices.Contains(c.Args, "--watch"); got != tc.watch {
				t.Errorf("%s: --watch in args = %v, want %v", w.name, got, tc.watch)
			}
			checkReferences(t, r, w)
			checkSecurity(t, r, w)
			checkNetworkPolicy(t, r, w)
			checkServices(t, r, w)
			if tc.watch {
				checkMetricsAndProbes(t, c)
			}
			checkConfigAndSecret(t, r, w)
		})
	}
}

// checkReferences: every ServiceAccount, ConfigMap and Secret the pod
// names is defined in the same overlay, with the keys it reads.
func checkReferences(t *testing.T, r *rendered, w workload) {
	t.Helper()
	spec := w.pod.Spec
	if spec.ServiceAccountName == "" || r.get("ServiceAccount", spec.ServiceAccountName) == nil {
		t.Errorf("%s: ServiceAccount %q not in %s", w.name, spec.ServiceAccountName, r.dir)
	}
	for _, v := range spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			cm, _ := r.get("ConfigMap", v.ConfigMap.Name).(*corev1.ConfigMap)
			if cm == nil {
				t.Errorf("%s: volume %s: ConfigMap %q not in %s", w.name, v.Name, v.ConfigMap.Name, r.dir)
				continue
			}
			for _, it := range v.ConfigMap.Items {
				if _, ok := cm.Data[it.Key]; !ok {
					t.Errorf("%s: volume %s: ConfigMap %s has no key %q", w.name, v.Name, cm.Name, it.Key)
				}
			}
		case v.Secret != nil:
			if r.get("Secret", v.Secret.SecretName) == nil {
				t.Errorf("%s: volume %s: Secret %q not in %s", w.name, v.Name, v.Secret.SecretName, r.dir)
			}
		}
	}
	for _, c := range spec.Containers {
		if !strings.Contains(c.Image, "/") || !strings.ContainsAny(c.Image, ":@") {
			t.Errorf("%s: image %q is not a pinned registry image", w.name, c.Image)
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if ref := e.ValueFrom.SecretKeyRef; ref != nil {
				s, _ := r.get("Secret", ref.Name).(*corev1.Secret)
				if s == nil || !slices.Contains(secretKeys(s), ref.Key) {
					t.Errorf("%s: env %s: Secret %q with key %q not in %s", w.name, e.Name, ref.Name, ref.Key, r.dir)
				}
			}
			if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
				cm, _ := r.get("ConfigMap", ref.Name).(*corev1.ConfigMap)
				if cm == nil || cm.Data[ref.Key] == "" {
					t.Errorf("%s: env %s: ConfigMap %q with key %q not in %s", w.name, e.Name, ref.Name, ref.Key, r.dir)
				}
			}
		}
		if len(c.EnvFrom) > 0 {
			t.Errorf("%s: envFrom hides which keys are read; use env with secretKeyRef", w.name)
		}
	}
}

func secretKeys(s *corev1.Secret) []string {
	var keys []string
	for k := range s.StringData {
		keys = append(keys, k)
	}
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkSecurity: non-root, read-only root filesystem, no capabilities, no
// privilege escalation, seccomp RuntimeDefault, no API token, bounded
// resources.
func checkSecurity(t *testing.T, r *rendered, w workload) {
	t.Helper()
	psc := w.pod.Spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("%s: pod must run as a non-root numeric user: %+v", w.name, psc)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: pod seccomp profile is not RuntimeDefault", w.name)
	}
	if a := w.pod.Spec.AutomountServiceAccountToken; a == nil || *a {
		t.Errorf("%s: the service account token is mounted", w.name)
	}
	for _, c := range w.pod.Spec.Containers {
		sc := c.SecurityContext
		switch {
		case sc == nil:
			t.Errorf("%s/%s: no securityContext", w.name, c.Name)
			continue
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Errorf("%s/%s: allowPrivilegeEscalation is not false", w.name, c.Name)
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Errorf("%s/%s: root filesystem is writable", w.name, c.Name)
		case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0:
			t.Errorf("%s/%s: capabilities are not all dropped", w.name, c.Name)
		case sc.Privileged != nil && *sc.Privileged:
			t.Errorf("%s/%s: privileged", w.name, c.Name)
		}
		for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := c.Resources.Requests[res]; !ok {
				t.Errorf("%s/%s: no %s request", w.name, c.Name, res)
			}
			if _, ok := c.Resources.Limits[res]; !ok {
				t.Errorf("%s/%s: no %s limit", w.name, c.Name, res)
			}
		}
	}
}

// checkNetworkPolicy: a policy selects the pod, denies ingress except the
// ports the container declares, and allows egress to DNS and 443 only.
func checkNetworkPolicy(t *testing.T, r *rendered, w workload) {
	t.Helper()
	var declared []int32
	for _, c := range w.pod.Spec.Containers {
		for _, p := range c.Ports {
			declared = append(declared, p.ContainerPort)
		}
	}
	found := false
	for _, o := range r.objects {
		np, ok := o.(*networkingv1.NetworkPolicy)
		if !ok || !selects(t, &np.Spec.PodSelector, w.pod.Labels) {
			continue
		}
		found = true
		if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
			t.Errorf("NetworkPolicy %s: policyTypes %v, want Ingress and Egress", np.Name, np.Spec.PolicyTypes)
		}
		allowed := map[string]bool{"UDP/53": true, "TCP/53": true, "TCP/443": true}
		for _, rule := range np.Spec.Egress {
			if len(rule.Ports) == 0 {
				t.Errorf("NetworkPolicy %s: an egress rule allows every port", np.Name)
			}
			for _, p := range rule.Ports {
				if key := portKey(p); !allowed[key] {
					t.Errorf("NetworkPolicy %s: egress to %s", np.Name, key)
				}
			}
		}
		for _, rule := range np.Spec.Ingress {
			if len(rule.Ports) == 0 {
				t.Errorf("NetworkPolicy %s: an ingress rule allows every port", np.Name)
			}
			for _, p := range rule.Ports {
				if p.Port == nil || !slices.Contains(declared, p.Port.IntVal) {
					t.Errorf("NetworkPolicy %s: ingress to %s, which the container does not serve", np.Name, portKey(p))
				}
			}
		}
	}
	if !found {
		t.Errorf("%s: no NetworkPolicy selects labels %v", w.name, w.pod.Labels)
	}
}

func portKey(p networkingv1.NetworkPolicyPort) string {
	proto := "TCP"
	if p.Protocol != nil {
		proto = string(*p.Protocol)
	}
	if p.Port == nil {
		return proto + "/any"
	}
	return proto + "/" + p.Port.String()
}

func selects(t *testing.T, sel *metav1.LabelSelector, podLabels map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return !s.Empty() && s.Matches(labels.Set(podLabels))
}

// checkServices: every Service selects the pod and targets a port it declares.
func checkServices(t *testing.T, r *rendered, w workload) {
	t.Helper()
	for _, o := range r.objects {
		svc, ok := o.(*corev1.Service)
		if !ok {
			continue
		}
		if !selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, w.pod.Labels) {
			t.Errorf("Service %s selects %v, not the pods of %s", svc.Name, svc.Spec.Selector, w.name)
		}
		for _, p := range svc.Spec.Ports {
			if _, ok := containerPort(w.pod.Spec.Containers[0], p.TargetPort.String()); !ok {
				t.Errorf("Service %s: targetPort %s is not a container port", svc.Name, p.TargetPort.String())
			}
		}
	}
}

// containerPort finds a declared port by name or number.
func containerPort(c corev1.Container, nameOrNumber string) (int32, bool) {
	for _, p := range c.Ports {
		if p.Name == nameOrNumber || strconv.Itoa(int(p.ContainerPort)) == nameOrNumber {
			return p.ContainerPort, true
		}
	}
	return 0, false
}

// checkMetricsAndProbes: --metrics-addr listens on a declared port, and
// both probes ask that port for /healthz.
func checkMetricsAndProbes(t *testing.T, c corev1.Container) {
	t.Helper()
	addr := argValue(c.Args, "--metrics-addr")
	port := addr[strings.LastIndex(addr, ":")+1:]
	if _, ok := containerPort(c, port); addr == "" || !ok {
		t.Errorf("--metrics-addr %q does not listen on a declared container port", addr)
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" {
			t.Errorf("%s probe is not GET /healthz: %+v", name, p)
			continue
		}
		if got, _ := containerPort(c, p.HTTPGet.Port.String()); strconv.Itoa(int(got)) != port {
			t.Errorf("%s probe asks port %s, metrics listen on %s", name, p.HTTPGet.Port.String(), port)
		}
	}
}

func argValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// checkConfigAndSecret lays the ConfigMap out as the pod sees it at
// --config-dir, runs `fullsend validate` on it, and checks that the Secret
// holds exactly the variables the configuration names (plus GITHUB_TOKEN
// for the GitHub forge and output), all of them passed to the container.
func checkConfigAndSecret(t *testing.T, r *rendered, w workload) {
	t.Helper()
	c := w.pod.Spec.Containers[0]
	dir := materializeConfig(t, r, w.pod, c)
	env := map[string]string{}
	fromSecret := map[string]string{} // variable -> Secret name
	for _, e := range c.Env {
		env[e.Name] = "placeholder"
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			fromSecret[e.Name] = e.ValueFrom.SecretKeyRef.Name
		}
	}
	var out, errb bytes.Buffer
	app := &cli.App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	if code := cli.Run(context.Background(), app, []string{"validate", "--config-dir", dir}); code != 0 {
		t.Fatalf("%s: fullsend validate exit %d:\n%s", r.dir, code, errb.String())
	}

	want := append(configEnvNames(t, filepath.Join(dir, "config.yaml")), "GITHUB_TOKEN")
	slices.Sort(want)
	want = slices.Compact(want)
	var secret *corev1.Secret
	for _, name := range want {
		s, ok := fromSecret[name]
		if !ok {
			t.Errorf("%s: the config needs %s, which the container does not get from a Secret", w.name, name)
			continue
		}
		secret, _ = r.get("Secret", s).(*corev1.Secret)
	}
	if secret != nil && !slices.Equal(secretKeys(secret), want) {
		t.Errorf("Secret %s keys %v, want exactly %v", secret.Name, secretKeys(secret), want)
	}
}

// materializeConfig writes the ConfigMap volume mounted at --config-dir
// into a temporary directory, item paths and all.
func materializeConfig(t *testing.T, r *rendered, pod *corev1.PodTemplateSpec, c corev1.Container) string {
	t.Helper()
	configDir := argValue(c.Args, "--config-dir")
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == configDir {
			volume = m.Name
		}
	}
	dir := t.TempDir()
	for _, v := range pod.Spec.Volumes {
		if v.Name != volume || v.ConfigMap == nil {
			continue
		}
		cm := r.get("ConfigMap", v.ConfigMap.Name).(*corev1.ConfigMap)
		for _, it := range v.ConfigMap.Items {
			path := filepath.Join(dir, filepath.FromSlash(it.Path))
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(cm.Data[it.Key]), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Fatalf("--config-dir %q is not a mounted ConfigMap", configDir)
	return ""
}

// configEnvNames lists the values of every *_env key in config.yaml: the
// environment variables the configuration reads credentials from.
func configEnvNames(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	var names []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if strings.HasSuffix(n.Content[i].Value, "_env") && n.Content[i+1].Value != "" {
					names = append(names, n.Content[i+1].Value)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	if len(names) == 0 {
		t.Fatalf("%s names no credential variables", path)
	}
	return names
}
