package esdp

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNilProblemsAreErrors: the oracles' entry points return an error on
// a nil problem instead of dereferencing it (issue 12 class 7, audit
// finding 3).
func TestNilProblemsAreErrors(t *testing.T) {
	require.NotPanics(t, func() {
		_, err := SolveKnapsack(nil, OracleSettings{})
		require.ErrorIs(t, err, ErrValue)
		_, err = SolveBudgeted(nil, OracleSettings{})
		require.ErrorIs(t, err, ErrValue)
		_, err = Algorithm2(nil, OracleSettings{})
		require.ErrorIs(t, err, ErrValue)
	})
}

// TestInstanceJSONStrictKeys: a repeated key (encoding/json keeps the
// last "capacity"), a miscased or an unknown key is an error (audit
// finding 4).
func TestInstanceJSONStrictKeys(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	b, err := json.Marshal(in)
	require.NoError(t, err)
	var ok Instance
	require.NoError(t, json.Unmarshal(b, &ok))
	for _, bad := range []string{
		strings.Replace(string(b), `"capacity":`, `"capacity":[5],"capacity":`, 1),
		strings.Replace(string(b), `"version":1`, `"VERSION":1`, 1),
		strings.Replace(string(b), `"version":1`, `"version":1,"zz":0`, 1),
	} {
		var got Instance
		require.ErrorIs(t, json.Unmarshal([]byte(bad), &got), ErrValue, bad[:60])
	}
}
