package deploy

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fullsend-dev/fullsend/internal/cli"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/periodic"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollmetrics"
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
	secret := docSecret(t, docCommands(t))
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
			checkReferences(t, r, w, secret)
			checkLabels(t, r)
			checkSecurity(t, r, w)
			checkNetworkPolicy(t, r, w)
			checkServices(t, r, w)
			if tc.watch {
				checkMetricsAndProbes(t, c)
			}
			checkConfigAndSecret(t, r, w, secret)
		})
	}
}

// checkReferences: every ServiceAccount and ConfigMap the pod names is
// defined in the same overlay, with the keys it reads; every Secret is the
// one docs/deploy.md creates, with the keys it reads.
func checkReferences(t *testing.T, r *rendered, w workload, secret documentedSecret) {
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
			if v.Secret.SecretName != secret.name {
				t.Errorf("%s: volume %s: Secret %q is not the one %s creates (%s)", w.name, v.Name, v.Secret.SecretName, deployDoc, secret.name)
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
			if ref := e.ValueFrom.SecretKeyRef; ref != nil && (ref.Name != secret.name || !slices.Contains(secret.keys, ref.Key)) {
				t.Errorf("%s: env %s: Secret %q with key %q is not created by %s:%d (Secret %s, keys %v)",
					w.name, e.Name, ref.Name, ref.Key, deployDoc, secret.line, secret.name, secret.keys)
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

// checkMetricsAndProbes: --metrics-addr listens on a declared port, the
// readiness probe asks that port for /healthz (the tracker's health) and
// the liveness probe for /livez (the poll loop turns), and the binary's
// handler answers them so: a tracker outage makes the pod unready, never
// restarts it.
func checkMetricsAndProbes(t *testing.T, c corev1.Container) {
	t.Helper()
	addr := argValue(c.Args, "--metrics-addr")
	port := addr[strings.LastIndex(addr, ":")+1:]
	if _, ok := containerPort(c, port); addr == "" || !ok {
		t.Errorf("--metrics-addr %q does not listen on a declared container port", addr)
	}
	probes := map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe}
	want := map[string]string{"liveness": "/livez", "readiness": "/healthz"}
	for name, p := range probes {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != want[name] {
			t.Errorf("%s probe is not GET %s: %+v", name, want[name], p)
			continue
		}
		if got, _ := containerPort(c, p.HTTPGet.Port.String()); strconv.Itoa(int(got)) != port {
			t.Errorf("%s probe asks port %s, metrics listen on %s", name, p.HTTPGet.Port.String(), port)
		}
	}
	if c.LivenessProbe != nil && c.ReadinessProbe != nil && c.LivenessProbe.HTTPGet != nil && c.ReadinessProbe.HTTPGet != nil {
		checkProbesDuringOutage(t, argValue(c.Args, "--interval"), c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
	}
}

// checkProbesDuringOutage serves the binary's metrics handler on a fake
// clock through a Jira outage of an hour (cycles failing at the longest
// backoff) and then a stuck loop: readiness fails during the outage,
// liveness only when the loop stops.
func checkProbesDuringOutage(t *testing.T, intervalFlag, liveness, readiness string) {
	t.Helper()
	interval, err := time.ParseDuration(intervalFlag)
	if err != nil {
		t.Fatalf("--interval %q: %v", intervalFlag, err)
	}
	clk := fakeclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := metrics.NewClock(interval, clk.Now)
	h := m.Handler()
	get := func(p string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		return rec.Code
	}
	observe := pollmetrics.New(m).Cycles("gha-dispatch")
	observe(poll.CycleStats{Driver: "jira-poll"})
	for end := clk.Now().Add(time.Hour); clk.Now().Before(end); {
		clk.Advance(periodic.Backoff(interval, periodic.MaxBackoffFactor))
		observe(poll.CycleStats{Driver: "jira-poll", Error: "jira: HTTP 503"})
		if got := get(liveness); got != http.StatusOK {
			t.Fatalf("liveness %s answers %d during a Jira outage: every pod would restart", liveness, got)
		}
	}
	if got := get(readiness); got != http.StatusServiceUnavailable {
		t.Errorf("readiness %s answers %d after an hour of failing cycles", readiness, got)
	}
	clk.Advance(time.Duration(metrics.LiveIntervals+1) * interval)
	if got := get(liveness); got != http.StatusServiceUnavailable {
		t.Errorf("liveness %s answers %d after %d intervals without a cycle", liveness, got, metrics.LiveIntervals+1)
	}
}

// checkLabels: every object, and the templates of the Jobs and pods a
// workload makes, carries app.kubernetes.io/name=fullsend, so that
// `kubectl get all -l app.kubernetes.io/name=fullsend` lists them.
func checkLabels(t *testing.T, r *rendered) {
	t.Helper()
	const key, value = "app.kubernetes.io/name", "fullsend"
	check := func(what string, l map[string]string) {
		if l[key] != value {
			t.Errorf("%s: %s has labels %v, want %s=%s", r.dir, what, l, key, value)
		}
	}
	for _, o := range r.objects {
		acc, err := meta.Accessor(o)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%T %s", o, acc.GetName())
		check(what, acc.GetLabels())
		switch o := o.(type) {
		case *batchv1.CronJob:
			check(what+" jobTemplate", o.Spec.JobTemplate.Labels)
			check(what+" pod template", o.Spec.JobTemplate.Spec.Template.Labels)
		case *appsv1.Deployment:
			check(what+" pod template", o.Spec.Template.Labels)
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
// docs/deploy.md creates holds exactly the variables the configuration
// names (plus GITHUB_TOKEN for the GitHub forge and output), all of them
// passed to the container from it.
func checkConfigAndSecret(t *testing.T, r *rendered, w workload, secret documentedSecret) {
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
	for _, name := range want {
		if s, ok := fromSecret[name]; !ok || s != secret.name {
			t.Errorf("%s: the config needs %s, which the container does not get from Secret %s", w.name, name, secret.name)
		}
	}
	if !slices.Equal(secret.keys, want) {
		t.Errorf("%s:%d: Secret %s keys %v, want exactly %v", deployDoc, secret.line, secret.name, secret.keys, want)
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
