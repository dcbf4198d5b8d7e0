package statestore

import (
	"testing"
)

func TestDecodeAndCheckHeader(t *testing.T) {
	type st struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	var v st
	if err := Decode([]byte(`{"format":"f","version":2}`), &v); err != nil || v != (st{"f", 2}) {
		t.Fatalf("Decode = %v, %+v", err, v)
	}
	for _, bad := range []string{`{"format":"f","x":1}`, `{"format":"f"}{}`, `{"format":`, ``} {
		if err := Decode([]byte(bad), &st{}); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
	if err := CheckHeader("f", 2, "f", 2); err != nil {
		t.Fatal(err)
	}
	if err := CheckHeader("g", 2, "f", 2); err == nil || err.Error() != `format = "g", want "f"` {
		t.Errorf("format mismatch: %v", err)
	}
	if err := CheckHeader("f", 1, "f", 2); err == nil || err.Error() != "version = 1, want 2" {
		t.Errorf("version mismatch: %v", err)
	}
}
