//go:build amd64 && !noasm && !purego && !gccgo

#include "textflag.h"

// Eight tiny blocks at once, one per lane (TinySolve8). Constants:
// -Inf, +Inf, 0.5, 1.0.
DATA l8const<>+0(SB)/8, $0xfff0000000000000
DATA l8const<>+8(SB)/8, $0x7ff0000000000000
DATA l8const<>+16(SB)/8, $0.5
DATA l8const<>+24(SB)/8, $1.0
GLOBL l8const<>(SB), RODATA|NOPTR, $32

// R = min(max(z_i, 0), u_i), coordinate vector i at byte offset off.
#define LCLIP8(off, R) \
	VMOVUPD off(SI), Z0; \
	VMAXPD  Z8, Z0, Z0;  \
	VMINPD  off(DX), Z0, R

// The classification of coordinate vector i at mid (Z9), as TinySolve's
// root: R = u on capped lanes, z on free lanes, +0 elsewhere; M (Z6) += 1
// on free lanes.
#define SFREE8(off, R) \
	VMOVUPD   off(SI), Z0;            \
	VMOVUPD   off(DX), Z1;            \
	VSUBPD    Z9, Z0, Z15;            \
	VCMPPD    $0x1e, Z8, Z15, K1;     \
	VCMPPD    $0x11, Z1, Z15, K1, K3; \
	VCMPPD    $0x15, Z1, Z15, K1, K4; \
	VMOVAPD.Z Z1, K4, R;              \
	VMOVAPD   Z0, K3, R;              \
	VADDPD    Z29, Z6, K3, Z6

// Z24 = ((Z16+Z20)+(Z18+Z22)) + ((Z17+Z21)+(Z19+Z23)): the order of
// Lanes.Reduce, lane by lane.
#define TREE8 \
	VADDPD Z20, Z16, Z24; \
	VADDPD Z21, Z17, Z25; \
	VADDPD Z22, Z18, Z26; \
	VADDPD Z23, Z19, Z27; \
	VADDPD Z26, Z24, Z24; \
	VADDPD Z27, Z25, Z25; \
	VADDPD Z25, Z24, Z24

#define ZERO8 \
	VPXORQ Z16, Z16, Z16; \
	VPXORQ Z17, Z17, Z17; \
	VPXORQ Z18, Z18, Z18; \
	VPXORQ Z19, Z19, Z19; \
	VPXORQ Z20, Z20, Z20; \
	VPXORQ Z21, Z21, Z21; \
	VPXORQ Z22, Z22, Z22; \
	VPXORQ Z23, Z23, Z23

// func tinySolve8AVX512(dst, z, u []float64, c, tau *[8]float64, n int) int
// 1 <= n <= 8; z, u and dst hold n vectors of 8 (coordinate i of block b
// at 8i+b). Returns 0, writing nothing, if some value is NaN or infinite
// or some u < 0; else 1.
TEXT ·tinySolve8AVX512(SB), NOSPLIT, $0-104
	MOVQ         dst_base+0(FP), DI
	MOVQ         z_base+24(FP), SI
	MOVQ         u_base+48(FP), DX
	MOVQ         c+72(FP), R8
	MOVQ         tau+80(FP), R10
	MOVQ         n+88(FP), R9
	MOVQ         R9, R11
	SHLQ         $6, R11
	VMOVUPD      (R8), Z7
	VPXORQ       Z8, Z8, Z8
	VBROADCASTSD l8const<>+0(SB), Z12
	VBROADCASTSD l8const<>+8(SB), Z13
	VBROADCASTSD l8const<>+16(SB), Z28
	VBROADCASTSD l8const<>+24(SB), Z29

	// The check: a NaN in the sum of (z-z)+(u-u), or some u < 0.
	VPXORQ Z9, Z9, Z9
	KXORW  K7, K7, K7
	XORQ   AX, AX

l8chk:
	VMOVUPD  (SI)(AX*1), Z0
	VMOVUPD  (DX)(AX*1), Z1
	VSUBPD   Z0, Z0, Z2
	VSUBPD   Z1, Z1, Z3
	VADDPD   Z3, Z2, Z2
	VADDPD   Z2, Z9, Z9
	VCMPPD   $0x11, Z8, Z1, K1
	KORW     K1, K7, K7
	ADDQ     $64, AX
	CMPQ     AX, R11
	JB       l8chk
	VCMPPD   $3, Z9, Z9, K1
	KORW     K1, K7, K7
	KORTESTW K7, K7
	JNE      l8bad

	// phi(0) per lane, in TinySolve's order (+0 beyond n); K5: binding.
	ZERO8
	LCLIP8(0, Z16)
	CMPQ R9, $2
	JB   l8phi
	LCLIP8(64, Z17)
	CMPQ R9, $3
	JB   l8phi
	LCLIP8(128, Z18)
	CMPQ R9, $4
	JB   l8phi
	LCLIP8(192, Z19)
	CMPQ R9, $5
	JB   l8phi
	LCLIP8(256, Z20)
	CMPQ R9, $6
	JB   l8phi
	LCLIP8(320, Z21)
	CMPQ R9, $7
	JB   l8phi
	LCLIP8(384, Z22)
	CMPQ R9, $8
	JB   l8phi
	LCLIP8(448, Z23)

l8phi:
	TREE8
	VCMPPD $0x1e, Z7, Z24, K5

	// The bracket: for the keys a = z_i and b = z_i - u_i, P and Q = phi
	// at them (sums over j in ascending order from +0, as TinySolve);
	// lo (Z10) = max of the keys with phi > c, hi (Z11) = min of the keys
	// > 0 with phi <= c.
	VMOVAPD Z12, Z10
	VMOVAPD Z13, Z11
	XORQ    AX, AX

l8key:
	VMOVUPD (SI)(AX*1), Z2
	VSUBPD  (DX)(AX*1), Z2, Z3
	VPXORQ  Z4, Z4, Z4
	VPXORQ  Z5, Z5, Z5
	XORQ    BX, BX

l8acc:
	VMOVUPD (SI)(BX*1), Z0
	VMOVUPD (DX)(BX*1), Z1
	VSUBPD  Z2, Z0, Z14
	VSUBPD  Z3, Z0, Z15
	VMAXPD  Z8, Z14, Z14
	VMAXPD  Z8, Z15, Z15
	VMINPD  Z1, Z14, Z14
	VMINPD  Z1, Z15, Z15
	VADDPD  Z14, Z4, Z4
	VADDPD  Z15, Z5, Z5
	ADDQ    $64, BX
	CMPQ    BX, R11
	JB      l8acc

	VCMPPD    $0x1e, Z8, Z2, K2
	VCMPPD    $0x1e, Z8, Z3, K3
	VCMPPD    $0x1e, Z7, Z4, K1
	VBLENDMPD Z2, Z12, K1, Z14
	VMAXPD    Z14, Z10, Z10
	VCMPPD    $0x12, Z7, Z4, K2, K4
	VBLENDMPD Z2, Z13, K4, Z15
	VMINPD    Z15, Z11, Z11
	VCMPPD    $0x1e, Z7, Z5, K1
	VBLENDMPD Z3, Z12, K1, Z14
	VMAXPD    Z14, Z10, Z10
	VCMPPD    $0x12, Z7, Z5, K3, K4
	VBLENDMPD Z3, Z13, K4, Z15
	VMINPD    Z15, Z11, Z11
	ADDQ      $64, AX
	CMPQ      AX, R11
	JB        l8key
	VMAXPD    Z8, Z10, Z10

	// The root: mid = lo + (hi-lo)/2 (Z9), sums and free counts (Z6).
	VSUBPD Z10, Z11, Z14
	VMULPD Z28, Z14, Z14
	VADDPD Z14, Z10, Z9
	VPXORQ Z6, Z6, Z6
	ZERO8
	SFREE8(0, Z16)
	CMPQ   R9, $2
	JB     l8sum
	SFREE8(64, Z17)
	CMPQ   R9, $3
	JB     l8sum
	SFREE8(128, Z18)
	CMPQ   R9, $4
	JB     l8sum
	SFREE8(192, Z19)
	CMPQ   R9, $5
	JB     l8sum
	SFREE8(256, Z20)
	CMPQ   R9, $6
	JB     l8sum
	SFREE8(320, Z21)
	CMPQ   R9, $7
	JB     l8sum
	SFREE8(384, Z22)
	CMPQ   R9, $8
	JB     l8sum
	SFREE8(448, Z23)

l8sum:
	TREE8
	VSUBPD    Z7, Z24, Z24
	VDIVPD    Z6, Z24, Z24
	VMAXPD    Z10, Z24, Z24
	VMINPD    Z11, Z24, Z24
	VCMPPD    $0, Z8, Z6, K1
	VMOVAPD   Z11, K1, Z24
	VMOVAPD.Z Z24, K5, Z24
	VMOVUPD   Z24, (R10)

	// dst = min(max(z - tau, 0), u).
	XORQ AX, AX

l8clip:
	VMOVUPD (SI)(AX*1), Z0
	VSUBPD  Z24, Z0, Z0
	VMAXPD  Z8, Z0, Z0
	VMINPD  (DX)(AX*1), Z0, Z0
	VMOVUPD Z0, (DI)(AX*1)
	ADDQ    $64, AX
	CMPQ    AX, R11
	JB      l8clip
	MOVQ    $1, ret+96(FP)
	VZEROUPPER
	RET

l8bad:
	MOVQ $0, ret+96(FP)
	VZEROUPPER
	RET
