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
	"io"
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
	// The cheap checks first (a damaged snapshot fails them), then the
	// key-by-key walks, which encoding/json alone does not do.
	var env envelope
	if err := strict(data, &env); err != nil {
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
	sum, err := Checksum(env.State)
	if err != nil {
		return fmt.Errorf("%w: state: %w", ErrCorrupt, err)
	}
	if sum != env.Check {
		return fmt.Errorf("%w: check %s does not match the state (%s): the state was altered or damaged", ErrCorrupt, env.Check, sum)
	}
	if err := strictjson.Check(data, &envelope{}); err != nil {
		return fmt.Errorf("%w: envelope: %w", ErrCorrupt, err)
	}
	if err := strictjson.Complete(env.State, state); err != nil {
		return fmt.Errorf("%w: state: %w", ErrCorrupt, err)
	}
	return strict(env.State, state)
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

func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the JSON object", ErrCorrupt)
	}
	return nil
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
