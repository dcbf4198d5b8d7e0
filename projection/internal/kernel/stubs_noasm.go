//go:build !amd64 || noasm || purego || gccgo

package kernel

const (
	levelGo     = 0
	levelAVX512 = -1 // never in this build
)

// impls lists the implementations: only the Go one in this build.
var impls = []impl{{"go", true, levelGo, 24, 0}}

var (
	useAsm   = false
	implName = "go"
	level    = levelGo
)

func asmAll() bool { return false }

// The assembly dispatchers are never called in this build (useAsm is
// false).

func pieceAsm(l *Lanes, z, u []float64, t float64) {
	panic("projection: kernel: no assembly in this build")
}
func piece0Asm(l *Lanes, z, u []float64) { panic("projection: kernel: no assembly in this build") }
func clipAsm(dst, z, u []float64, tau float64) {
	panic("projection: kernel: no assembly in this build")
}
func tinySolveAsm(r *Tiny, dst, z, u []float64, c float64) {
	panic("projection: kernel: no assembly in this build")
}
