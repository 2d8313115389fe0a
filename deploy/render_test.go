package deploy

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// overlays are the deployable kustomizations; each must be self-contained.
var overlays = []string{"kubernetes/overlays/cronjob", "kubernetes/overlays/watch"}

// strict decodes Kubernetes objects into k8s.io/api types, failing on
// unknown or duplicate fields.
var strict = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme,
		batchv1.AddToScheme, networkingv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}()

// rendered is one overlay's objects, by kind and name.
type rendered struct {
	dir     string
	objects []runtime.Object
	byName  map[string]runtime.Object // "Kind/name"
}

func (r *rendered) get(kind, name string) runtime.Object { return r.byName[kind+"/"+name] }

// render builds dir with kustomize and decodes every object strictly.
func render(t *testing.T, dir string) *rendered {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	r := &rendered{dir: dir, byName: map[string]runtime.Object{}}
	for _, res := range m.Resources() {
		b, err := res.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: %s: %v", dir, res.CurId(), err)
		}
		obj, gvk, err := strict.Decode(b, nil, nil)
		if err != nil {
			t.Fatalf("%s: %s does not decode strictly: %v", dir, res.CurId(), err)
		}
		r.objects = append(r.objects, obj)
		r.byName[gvk.Kind+"/"+res.GetName()] = obj
	}
	return r
}

// The decoder really is strict: a misspelt field fails.
func TestStrictDecoderRejectsUnknownFields(t *testing.T) {
	for _, doc := range []string{
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"},"spec":{"replica":2}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"b"},"dta":{}}`,
		`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"x"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"c","imagePullPolicy":"Always","securityContext":{"readOnlyRootFileSystem":true}}]}}}}}}`,
	} {
		if _, _, err := strict.Decode([]byte(doc), nil, nil); err == nil {
			t.Errorf("accepted %s", doc)
		}
	}
	var ok json.RawMessage = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"b"}}`)
	if _, _, err := strict.Decode(ok, nil, nil); err != nil {
		t.Errorf("rejected a valid ConfigMap: %v", err)
	}
}

// workload is a pod template found in a rendered overlay.
type workload struct {
	name string
	pod  *corev1.PodTemplateSpec
}

func workloads(r *rendered) []workload {
	var out []workload
	for _, o := range r.objects {
		switch o := o.(type) {
		case *batchv1.CronJob:
			out = append(out, workload{"CronJob/" + o.Name, &o.Spec.JobTemplate.Spec.Template})
		case *appsv1.Deployment:
			out = append(out, workload{"Deployment/" + o.Name, &o.Spec.Template})
		}
	}
	return out
}
