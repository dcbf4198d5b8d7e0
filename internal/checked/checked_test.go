package checked

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
)

// bigFits is the reference: exact big-integer arithmetic.
func bigFits(z *big.Int) (int, bool) {
	if z.Sign() < 0 || !z.IsInt64() || z.Int64() > math.MaxInt {
		return 0, false
	}
	return int(z.Int64()), true
}

var operands = []int{0, 1, 2, 3, 7, 1 << 20, 1<<31 - 1, 1 << 31, 1 << 32, 3037000499, 3037000500,
	1 << 62, math.MaxInt / 2, math.MaxInt/2 + 1, math.MaxInt - 1, math.MaxInt, -1, math.MinInt}

func TestAddMulAgainstBig(t *testing.T) {
	for _, a := range operands {
		for _, b := range operands {
			sum, ok := Add(a, b)
			wantSum, wantOK := bigFits(new(big.Int).Add(big.NewInt(int64(a)), big.NewInt(int64(b))))
			if a < 0 || b < 0 {
				wantOK, wantSum = false, 0
			}
			assert.Equal(t, wantOK, ok, "Add(%d, %d)", a, b)
			assert.Equal(t, wantSum, sum, "Add(%d, %d)", a, b)

			prod, ok := Mul(a, b)
			wantProd, wantOK := bigFits(new(big.Int).Mul(big.NewInt(int64(a)), big.NewInt(int64(b))))
			if a < 0 || b < 0 {
				wantOK, wantProd = false, 0
			}
			assert.Equal(t, wantOK, ok, "Mul(%d, %d)", a, b)
			assert.Equal(t, wantProd, prod, "Mul(%d, %d)", a, b)
		}
	}
}

func TestProductWithin(t *testing.T) {
	p, ok := Product()
	assert.True(t, ok)
	assert.Equal(t, 1, p)
	p, ok = Product(1<<20, 1<<20, 1<<20)
	assert.True(t, ok)
	assert.Equal(t, 1<<60, p)
	_, ok = Product(1<<20, 1<<20, 1<<20, 1<<4)
	assert.False(t, ok, "2^64 overflows")
	_, ok = Product(0, -1)
	assert.False(t, ok, "negative operand")
	assert.True(t, Within(100, 10, 10))
	assert.False(t, Within(99, 10, 10))
	assert.False(t, Within(math.MaxInt, math.MaxInt, 2))
}

func FuzzMul(f *testing.F) {
	for _, a := range operands {
		f.Add(int64(a), int64(math.MaxInt))
	}
	f.Fuzz(func(t *testing.T, a, b int64) {
		got, ok := Mul(int(a), int(b))
		want, wantOK := bigFits(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)))
		if a < 0 || b < 0 {
			want, wantOK = 0, false
		}
		if got != want || ok != wantOK {
			t.Fatalf("Mul(%d, %d) = %d, %v; want %d, %v", a, b, got, ok, want, wantOK)
		}
	})
}
