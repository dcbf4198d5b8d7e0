package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/msched/msched/internal/strictjson"
)

// MaxBytes bounds the size of a snapshot that Decode accepts (1 GiB).
const MaxBytes = 1 << 30

// Sentinel errors. The families wrap their own ErrSnapshot around these.
var (
	// ErrFormat: not a snapshot of the expected format and version.
	ErrFormat = errors.New("snapshot: wrong format or version")
	// ErrModel: a snapshot of a policy built on a different model.
	ErrModel = errors.New("snapshot: model fingerprint mismatch")
	// ErrCorrupt: malformed JSON, a repeated, miscased, unknown or missing
	// key, trailing data, too large, no integrity check or one that does
	// not match the state, and (wrapped by the families) a state that
	// fails their semantic validation.
	ErrCorrupt = errors.New("snapshot: corrupt or truncated")
)

// checkPrefix names the hash of the check field.
const checkPrefix = "sha256:"

type envelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Model   string          `json:"model"`
	Check   string          `json:"check"`
	State   json.RawMessage `json:"state"`
}

// Checksum returns the check of a state: "sha256:" and the hex SHA-256 of the
// state bytes passed through json.Compact. It fails only on malformed
// JSON.
func Checksum(state []byte) (string, error) {
	var buf bytes.Buffer
	buf.Grow(len(state))
	if err := json.Compact(&buf, state); err != nil {
		return "", err
	}
	h := sha256.Sum256(buf.Bytes())
	return checkPrefix + hex.EncodeToString(h[:]), nil
}

// Encode returns the snapshot {"format","version","model","check","state"}
// with state marshalled by encoding/json and check its Checksum.
func Encode(format string, version int, model string, state any) ([]byte, error) {
	raw, err := json.Marshal(state)
	if err != nil {
		return nil, fmt.Errorf("snapshot: encoding %s state: %w", format, err)
	}
	sum, err := Checksum(raw)
	if err != nil {
		return nil, fmt.Errorf("snapshot: encoding %s state: %w", format, err)
	}
	return json.Marshal(envelope{Format: format, Version: version, Model: model, Check: sum, State: raw})
}

// Decode checks the envelope of data against format, version and model,
// verifies its check against the state and decodes the state into state (a
// pointer), rejecting repeated, miscased, unknown or missing keys and data
// after the object. The caller validates the decoded state semantically
// (lengths, ranges, bounds a run can reach) before installing it.
func Decode(data []byte, format string, version int, model string, state any) error {
	if len(data) > MaxBytes {
		return fmt.Errorf("%w: %d bytes, limit MaxBytes=%d", ErrCorrupt, len(data), MaxBytes)
	}
	// One pass checks the syntax, depth and keys of the whole snapshot and
	// returns the envelope's fields as slices of data (the state is not
	// copied); the cheap checks follow (a damaged snapshot fails them),
	// then the check, computed without a compacted copy, then the typed
	// walk and the decode of the state alone.
	env, err := readEnvelope(data)
	if err != nil {
		return err
	}
	if env.Format != format || env.Version != version {
		return fmt.Errorf("%w: got format %q version %d, want %q version %d", ErrFormat, env.Format, env.Version, format, version)
	}
	if env.Model != model {
		return fmt.Errorf("%w: snapshot of model %s restored into a policy on model %s", ErrModel, env.Model, model)
	}
	if len(env.State) == 0 || string(env.State) == "null" {
		return fmt.Errorf("%w: no state", ErrCorrupt)
	}
	if env.Check == "" {
		return fmt.Errorf("%w: no \"check\" field: a snapshot written before msched added the integrity check is not accepted; build the policy afresh (or re-save it with this version from a trusted copy of the old code)", ErrCorrupt)
	}
	if !strings.HasPrefix(env.Check, checkPrefix) {
		return fmt.Errorf("%w: check %q: want %q and 64 hex digits", ErrCorrupt, env.Check, checkPrefix)
	}
	if sum := compactSum(env.State); sum != env.Check {
		return fmt.Errorf("%w: check %s does not match the state (%s): the state was altered or damaged", ErrCorrupt, env.Check, sum)
	}
	if err := strictjson.Complete(env.State, state); err != nil {
		return fmt.Errorf("%w: state: %w", ErrCorrupt, err)
	}
	if err := strictjson.Decode(env.State, state); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return nil
}

// readEnvelope checks data (syntax, depth, one object, nothing after it)
// and decodes its envelope fields, State being a slice of data.
func readEnvelope(data []byte) (envelope, error) {
	var env envelope
	ms, err := strictjson.Members(data)
	if err != nil {
		return env, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	for _, m := range ms {
		var dst any
		switch m.Key {
		case "format":
			dst = &env.Format
		case "version":
			dst = &env.Version
		case "model":
			dst = &env.Model
		case "check":
			dst = &env.Check
		case "state":
			if string(m.Value) != "null" {
				env.State = m.Value
			}
			continue
		default:
			for _, k := range []string{"format", "version", "model", "check", "state"} {
				if strings.EqualFold(k, m.Key) {
					return env, fmt.Errorf("%w: envelope: %w: $: key %q, want %q spelled exactly", ErrCorrupt, strictjson.ErrKey, m.Key, k)
				}
			}
			return env, fmt.Errorf("%w: envelope: %w: unknown field %q", ErrCorrupt, strictjson.ErrKey, m.Key)
		}
		if err := json.Unmarshal(m.Value, dst); err != nil {
			return env, fmt.Errorf("%w: envelope %q: %w", ErrCorrupt, m.Key, err)
		}
	}
	return env, nil
}

// compactSum is Checksum of valid JSON without the compacted copy: it
// hashes the bytes json.Compact keeps (all but the white space outside
// strings), a buffer at a time.
func compactSum(state []byte) string {
	h := sha256.New()
	var buf [64 << 10]byte
	n := 0
	inString, escaped := false, false
	for _, c := range state {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			inString = true
		}
		buf[n] = c
		n++
		if n == len(buf) {
			h.Write(buf[:])
			n = 0
		}
	}
	h.Write(buf[:n])
	return checkPrefix + hex.EncodeToString(h.Sum(nil))
}

// Reseal returns data, a snapshot envelope, with its check recomputed for
// the state it holds (field order and other fields kept). It exists for
// tests that craft states to exercise the families' semantic validation,
// and shows that the check is no protection against a deliberate edit.
func Reseal(data []byte) ([]byte, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	sum, err := Checksum(env.State)
	if err != nil {
		return nil, fmt.Errorf("%w: state: %w", ErrCorrupt, err)
	}
	env.Check = sum
	return json.Marshal(env)
}

// Hasher builds a model fingerprint from the exact bits of the values it is
// given, in order. The zero value is not ready: use NewHasher.
type Hasher struct {
	h   hash.Hash64
	buf [8]byte
}

// NewHasher returns a Hasher whose fingerprint starts from the format name.
func NewHasher(format string) *Hasher {
	h := &Hasher{h: fnv.New64a()}
	h.String(format)
	return h
}

// Int adds v.
func (h *Hasher) Int(v int) *Hasher {
	binary.LittleEndian.PutUint64(h.buf[:], uint64(v))
	h.h.Write(h.buf[:])
	return h
}

// Float adds the bits of v.
func (h *Hasher) Float(v float64) *Hasher {
	binary.LittleEndian.PutUint64(h.buf[:], math.Float64bits(v))
	h.h.Write(h.buf[:])
	return h
}

// Ints adds the length of vs and each value.
func (h *Hasher) Ints(vs []int) *Hasher {
	h.Int(len(vs))
	for _, v := range vs {
		h.Int(v)
	}
	return h
}

// Floats adds the length of vs and the bits of each value.
func (h *Hasher) Floats(vs []float64) *Hasher {
	h.Int(len(vs))
	for _, v := range vs {
		h.Float(v)
	}
	return h
}

// String adds the length of s and its bytes.
func (h *Hasher) String(s string) *Hasher {
	h.Int(len(s))
	h.h.Write([]byte(s))
	return h
}

// Sum returns the fingerprint as 16 hex digits.
func (h *Hasher) Sum() string {
	s := strconv.FormatUint(h.h.Sum64(), 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}
