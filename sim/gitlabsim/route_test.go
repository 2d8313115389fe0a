package gitlabsim

import "testing"

// TestResourceGroupKeyWithDot: like GitLab, an unescaped dot in a resource
// group key is not routed (404); an escaped one is.
func TestResourceGroupKeyWithDot(t *testing.T) {
	for _, tc := range []struct {
		path    string
		wantKey string
		ok      bool
	}{
		{"/api/v4/projects/1/resource_groups/fullsend-a.b", "", false},
		{"/api/v4/projects/1/resource_groups/fullsend-a.b/upcoming_jobs", "", false},
		{"/api/v4/projects/1/resource_groups/fullsend-a%2Eb", "fullsend-a.b", true},
		{"/api/v4/projects/1/resource_groups/fullsend-a_2Eb", "fullsend-a_2Eb", true},
	} {
		rt, ok := parseRoute("GET", tc.path)
		if ok != tc.ok || rt.key != tc.wantKey {
			t.Errorf("%s: route %+v, ok %v; want key %q, ok %v", tc.path, rt, ok, tc.wantKey, tc.ok)
		}
	}
}
