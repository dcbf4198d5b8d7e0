package statestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Decode decodes the saved state b strictly into v (a pointer): malformed
// JSON, an unknown field or data after the object is an error. The plugin
// wraps its own ErrState around it.
func Decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the state object")
	}
	return nil
}

// CheckHeader compares a saved state's format and version with the ones
// the plugin writes, wantFormat and wantVersion.
func CheckHeader(format string, version int, wantFormat string, wantVersion int) error {
	if format != wantFormat {
		return fmt.Errorf("format = %q, want %q", format, wantFormat)
	}
	if version != wantVersion {
		return fmt.Errorf("version = %d, want %d", version, wantVersion)
	}
	return nil
}
