package strictjson

import "encoding/json"

// Decode decodes b into v (a non-nil pointer) with the semantics of
// json.Unmarshal. It does not check keys: call Valid or Complete first.
func Decode(b []byte, v any) error {
	return json.Unmarshal(b, v)
}
