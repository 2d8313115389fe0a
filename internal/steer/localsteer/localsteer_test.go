package localsteer

import (
	"os"
	"testing"
)

func TestPendingReadStarted(t *testing.T) {
	d, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	k := "triage:o/r:github:work_item:7"
	if rs, err := Read(d.Path(k)); err != nil || len(rs) != 0 {
		t.Fatalf("no file: %v %v", rs, err)
	}
	for _, idem := range []string{k + "@1777626000000.5", k + "@1777626001000.6", k + "@noversion"} {
		if err := d.Pending(k, idem); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Read(d.Path(k))
	if err != nil || len(rs) != 2 || rs[0].Waiting || rs[1].Waiting || rs[1].Pos.ID != 6 {
		t.Fatalf("records %+v, %v: the last key (no change) waits, so none of the two listed does", rs, err)
	}
	_ = d.Pending(k, k+"@1777626002000.7")
	rs, _ = Read(d.Path(k))
	if len(rs) != 3 || !rs[2].Waiting || rs[2].Pos.ID != 7 {
		t.Fatalf("records %+v", rs)
	}
	if st, err := os.Stat(d.path); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v %v", st.Mode(), err)
	}
	d.Started(k)
	if rs, _ := Read(d.Path(k)); len(rs) != 0 {
		t.Fatalf("after the start: %+v", rs)
	}
	for range MaxKeys + 5 {
		_ = d.Pending(k, k+"@1777626003000.9")
	}
	if rs, _ := Read(d.Path(k)); len(rs) != MaxKeys {
		t.Fatalf("%d records, want the bound %d", len(rs), MaxKeys)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"v":1,"keys":["a@1"]}`))
	f.Add([]byte(`{"v":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Parse(b)
	})
}
