//go:build amd64 && !noasm && !purego && !gccgo

#include "textflag.h"

// Constants: 4 x -Inf, 4 x +Inf (memory operands of 256-bit ops), int64 1.
DATA kconst<>+0(SB)/8, $0xfff0000000000000
DATA kconst<>+8(SB)/8, $0xfff0000000000000
DATA kconst<>+16(SB)/8, $0xfff0000000000000
DATA kconst<>+24(SB)/8, $0xfff0000000000000
DATA kconst<>+32(SB)/8, $0x7ff0000000000000
DATA kconst<>+40(SB)/8, $0x7ff0000000000000
DATA kconst<>+48(SB)/8, $0x7ff0000000000000
DATA kconst<>+56(SB)/8, $0x7ff0000000000000
DATA kconst<>+64(SB)/8, $1
GLOBL kconst<>(SB), RODATA|NOPTR, $72

#define NINF kconst<>+0(SB)
#define PINF kconst<>+32(SB)
#define ONE kconst<>+64(SB)

// Offsets of the fields of Lanes.
#define L_SUM 0
#define L_FREE 64
#define L_LEFT 128
#define L_RIGHT 192
#define L_ZMAX 256
#define L_CHK 320
#define L_UMIN 384

// ---------------------------------------------------------------- AVX-512
//
// One chunk of 8 coordinates in the lanes of a zmm register.
// In: Z0 = z, Z1 = u, Z2 = v = z - t. Constants: Z8 = 0, Z9 = int64 1,
// Z10 = -Inf, Z11 = +Inf. Accumulators: Z12 Sum, Z13 Free, Z14 Left,
// Z15 Right. Masks: K1 pos (v > 0), K3 free (pos and v < u), K4 capped
// (pos and not v < u; NLT_UQ is the exact complement of LT_OQ). Temporaries
// Z3-Z6: Z3 = b = z - u; Z4 = the contribution to Sum (u on capped, z on
// free, +0 elsewhere); Z5 = the left candidate (z on !pos, b on free, -Inf
// on capped); Z6 = the right candidate (b on capped, z on free, +Inf on
// !pos). Left keeps its value unless the candidate is greater (VMAXPD
// returns its second source on ties), Right likewise, as in the Go loop.
#define PIECE512 \
	VCMPPD    $0x1e, Z8, Z2, K1;     \
	VCMPPD    $0x11, Z1, Z2, K1, K3; \
	VCMPPD    $0x15, Z1, Z2, K1, K4; \
	VSUBPD    Z1, Z0, Z3;            \
	VMOVAPD.Z Z1, K4, Z4;            \
	VMOVAPD   Z0, K3, Z4;            \
	VADDPD    Z4, Z12, Z12;          \
	VPADDQ    Z9, Z13, K3, Z13;      \
	VBLENDMPD Z10, Z0, K1, Z5;       \
	VMOVAPD   Z3, K3, Z5;            \
	VMAXPD    Z14, Z5, Z14;          \
	VBLENDMPD Z3, Z11, K4, Z6;       \
	VMOVAPD   Z0, K3, Z6;            \
	VMINPD    Z15, Z6, Z15

#define INIT512 \
	VPXORQ       Z8, Z8, Z8;   \
	VPBROADCASTQ ONE, Z9;      \
	VBROADCASTSD NINF, Z10;    \
	VBROADCASTSD PINF, Z11;    \
	VPXORQ       Z12, Z12, Z12; \
	VPXORQ       Z13, Z13, Z13; \
	VMOVAPD      Z10, Z14;     \
	VMOVAPD      Z11, Z15

// K6 = the low R9 bits (R9 in 1..7); clobbers CX, R8.
#define TAILMASK \
	MOVQ  R9, CX;  \
	MOVL  $1, R8;  \
	SHLL  CX, R8;  \
	DECL  R8;      \
	KMOVW R8, K6

#define STORE512 \
	VMOVUPD   Z12, L_SUM(DI);  \
	VMOVDQU64 Z13, L_FREE(DI); \
	VMOVUPD   Z14, L_LEFT(DI); \
	VMOVUPD   Z15, L_RIGHT(DI)

// func pieceAVX512(l *Lanes, z, u []float64, t float64)
TEXT ·pieceAVX512(SB), NOSPLIT, $0-64
	MOVQ         l+0(FP), DI
	MOVQ         z_base+8(FP), SI
	MOVQ         z_len+16(FP), CX
	MOVQ         u_base+32(FP), DX
	MOVQ         CX, R9
	ANDQ         $-8, CX
	VBROADCASTSD t+56(FP), Z7
	INIT512
	XORQ         AX, AX
	TESTQ        CX, CX
	JE           p512tail

p512loop:
	VMOVUPD (SI)(AX*8), Z0
	VMOVUPD (DX)(AX*8), Z1
	VSUBPD  Z7, Z0, Z2
	PIECE512
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      p512loop

p512tail:
	// The last len(z) % 8 coordinates, masked (K6): the other lanes read
	// z = -Inf, u = 0, a zero coordinate that changes no accumulator.
	SUBQ      AX, R9
	JE        p512done
	TAILMASK
	VMOVAPD   Z10, Z0
	VMOVUPD   (SI)(AX*8), K6, Z0
	VMOVUPD.Z (DX)(AX*8), K6, Z1
	VSUBPD    Z7, Z0, Z2
	PIECE512

p512done:
	STORE512
	VZEROUPPER
	RET

// func piece0AVX512(l *Lanes, z, u []float64)
// Also Z16 ZMax (from -Inf), Z17 Chk (from 0), Z18 UMin (from 0).
TEXT ·piece0AVX512(SB), NOSPLIT, $0-56
	MOVQ    l+0(FP), DI
	MOVQ    z_base+8(FP), SI
	MOVQ    z_len+16(FP), CX
	MOVQ    u_base+32(FP), DX
	MOVQ    CX, R9
	ANDQ    $-8, CX
	INIT512
	VMOVAPD Z10, Z16
	VPXORQ  Z17, Z17, Z17
	VPXORQ  Z18, Z18, Z18
	XORQ    AX, AX
	TESTQ   CX, CX
	JE      p0512tail

p0512loop:
	VMOVUPD (SI)(AX*8), Z0
	VMOVUPD (DX)(AX*8), Z1
	VSUBPD  Z0, Z0, Z2
	VSUBPD  Z1, Z1, Z3
	VADDPD  Z3, Z2, Z2
	VADDPD  Z2, Z17, Z17
	VMINPD  Z18, Z1, Z18
	VMAXPD  Z16, Z0, Z16
	VMOVAPD Z0, Z2
	PIECE512
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      p0512loop

p0512tail:
	// Masked (K6): the check sees z = u = 0 in the other lanes, the pass
	// z = -Inf, u = 0.
	SUBQ      AX, R9
	JE        p0512done
	TAILMASK
	KNOTW     K6, K7
	VMOVUPD.Z (SI)(AX*8), K6, Z0
	VMOVUPD.Z (DX)(AX*8), K6, Z1
	VSUBPD    Z0, Z0, Z2
	VSUBPD    Z1, Z1, Z3
	VADDPD    Z3, Z2, Z2
	VADDPD    Z2, Z17, Z17
	VMINPD    Z18, Z1, Z18
	VMOVAPD   Z10, K7, Z0
	VMAXPD    Z16, Z0, Z16
	VMOVAPD   Z0, Z2
	PIECE512

p0512done:
	STORE512
	VMOVUPD Z16, L_ZMAX(DI)
	VMOVUPD Z17, L_CHK(DI)
	VMOVUPD Z18, L_UMIN(DI)
	VZEROUPPER
	RET

// func clipAVX512(dst, z, u []float64, tau float64)
TEXT ·clipAVX512(SB), NOSPLIT, $0-80
	MOVQ         dst_base+0(FP), DI
	MOVQ         z_base+24(FP), SI
	MOVQ         z_len+32(FP), CX
	MOVQ         u_base+48(FP), DX
	MOVQ         CX, R9
	ANDQ         $-8, CX
	VBROADCASTSD tau+72(FP), Z7
	VPXORQ       Z8, Z8, Z8
	XORQ         AX, AX
	TESTQ        CX, CX
	JE           c512tail

c512loop:
	VMOVUPD (SI)(AX*8), Z0
	VSUBPD  Z7, Z0, Z0
	VMAXPD  Z8, Z0, Z0
	VMINPD  (DX)(AX*8), Z0, Z0
	VMOVUPD Z0, (DI)(AX*8)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      c512loop

c512tail:
	// Masked loads and store (K6): nothing outside dst[:len(z)] is touched.
	SUBQ      AX, R9
	JE        c512done
	TAILMASK
	VMOVUPD.Z (SI)(AX*8), K6, Z0
	VMOVUPD.Z (DX)(AX*8), K6, Z1
	VSUBPD    Z7, Z0, Z0
	VMAXPD    Z8, Z0, Z0
	VMINPD    Z1, Z0, Z0
	VMOVUPD   Z0, K6, (DI)(AX*8)

c512done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------- AVX2
//
// One half chunk (4 coordinates, lanes 0-3 or 4-7) in a ymm register,
// with the masks as all-ones lanes and bitwise selects, like the Go loop.
// In: Y0 = z, Y1 = u, Y2 = v. Accumulators: S (Y8 lanes 0-3, Y9 lanes 4-7),
// Y10 Free, Y11 Left, Y12 Right (both halves: order-free). Temporaries
// Y1-Y6: Y3 pos, Y2 below, Y4 free, Y5 capped, Y6 b = z - u.
#define HALF2(S) \
	VXORPD  Y3, Y3, Y3;        \
	VCMPPD  $0x1e, Y3, Y2, Y3; \
	VCMPPD  $0x11, Y1, Y2, Y2; \
	VANDPD  Y3, Y2, Y4;        \
	VANDNPD Y3, Y2, Y5;        \
	VPSUBQ  Y4, Y10, Y10;      \
	VSUBPD  Y1, Y0, Y6;        \
	VANDPD  Y1, Y5, Y1;        \
	VANDPD  Y0, Y4, Y2;        \
	VORPD   Y1, Y2, Y1;        \
	VADDPD  Y1, S, S;          \
	VANDNPD Y0, Y3, Y1;        \
	VANDPD  Y6, Y4, Y2;        \
	VORPD   Y1, Y2, Y1;        \
	VANDPD  NINF, Y5, Y2;      \
	VORPD   Y1, Y2, Y1;        \
	VMAXPD  Y11, Y1, Y11;      \
	VANDPD  Y6, Y5, Y1;        \
	VANDPD  Y0, Y4, Y2;        \
	VORPD   Y1, Y2, Y1;        \
	VANDNPD PINF, Y3, Y2;      \
	VORPD   Y1, Y2, Y1;        \
	VMINPD  Y12, Y1, Y12

#define INIT2 \
	VXORPD       Y8, Y8, Y8;    \
	VXORPD       Y9, Y9, Y9;    \
	VXORPD       Y10, Y10, Y10; \
	VBROADCASTSD NINF, Y11;     \
	VBROADCASTSD PINF, Y12

// Lanes 4-7 of Free, Left and Right get their neutral values.
#define STORE2 \
	VMOVUPD      Y8, L_SUM(DI);       \
	VMOVUPD      Y9, L_SUM+32(DI);    \
	VMOVDQU      Y10, L_FREE(DI);     \
	VMOVUPD      Y11, L_LEFT(DI);     \
	VMOVUPD      Y12, L_RIGHT(DI);    \
	VXORPD       Y0, Y0, Y0;          \
	VMOVDQU      Y0, L_FREE+32(DI);   \
	VBROADCASTSD NINF, Y1;            \
	VMOVUPD      Y1, L_LEFT+32(DI);   \
	VBROADCASTSD PINF, Y2;            \
	VMOVUPD      Y2, L_RIGHT+32(DI)

// func pieceAVX2(l *Lanes, z, u []float64, t float64)
TEXT ·pieceAVX2(SB), NOSPLIT, $0-64
	MOVQ         l+0(FP), DI
	MOVQ         z_base+8(FP), SI
	MOVQ         z_len+16(FP), CX
	MOVQ         u_base+32(FP), DX
	ANDQ         $-8, CX
	VBROADCASTSD t+56(FP), Y7
	INIT2
	XORQ         AX, AX
	TESTQ        CX, CX
	JE           p2done

p2loop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD (DX)(AX*8), Y1
	VSUBPD  Y7, Y0, Y2
	HALF2(Y8)
	VMOVUPD 32(SI)(AX*8), Y0
	VMOVUPD 32(DX)(AX*8), Y1
	VSUBPD  Y7, Y0, Y2
	HALF2(Y9)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      p2loop

p2done:
	STORE2
	VZEROUPPER
	RET

// The check of piece0AVX2 for one half: Y13 Chk, Y14 UMin, Y15 ZMax
// (both halves in one register: order-free).
#define CHECK2 \
	VSUBPD Y0, Y0, Y2;    \
	VSUBPD Y1, Y1, Y3;    \
	VADDPD Y3, Y2, Y2;    \
	VADDPD Y2, Y13, Y13;  \
	VMINPD Y14, Y1, Y14;  \
	VMAXPD Y15, Y0, Y15;  \
	VMOVAPD Y0, Y2

// func piece0AVX2(l *Lanes, z, u []float64)
TEXT ·piece0AVX2(SB), NOSPLIT, $0-56
	MOVQ         l+0(FP), DI
	MOVQ         z_base+8(FP), SI
	MOVQ         z_len+16(FP), CX
	MOVQ         u_base+32(FP), DX
	ANDQ         $-8, CX
	INIT2
	VXORPD       Y13, Y13, Y13
	VXORPD       Y14, Y14, Y14
	VBROADCASTSD NINF, Y15
	XORQ         AX, AX
	TESTQ        CX, CX
	JE           p02done

p02loop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD (DX)(AX*8), Y1
	CHECK2
	HALF2(Y8)
	VMOVUPD 32(SI)(AX*8), Y0
	VMOVUPD 32(DX)(AX*8), Y1
	CHECK2
	HALF2(Y9)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      p02loop

p02done:
	STORE2
	VMOVUPD Y15, L_ZMAX(DI)
	VMOVUPD Y1, L_ZMAX+32(DI)
	VMOVUPD Y13, L_CHK(DI)
	VMOVUPD Y0, L_CHK+32(DI)
	VMOVUPD Y14, L_UMIN(DI)
	VMOVUPD Y0, L_UMIN+32(DI)
	VZEROUPPER
	RET

// func clipAVX2(dst, z, u []float64, tau float64)
TEXT ·clipAVX2(SB), NOSPLIT, $0-80
	MOVQ         dst_base+0(FP), DI
	MOVQ         z_base+24(FP), SI
	MOVQ         z_len+32(FP), CX
	MOVQ         u_base+48(FP), DX
	ANDQ         $-8, CX
	VBROADCASTSD tau+72(FP), Y7
	VXORPD       Y8, Y8, Y8
	XORQ         AX, AX
	TESTQ        CX, CX
	JE           c2done

c2loop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VSUBPD  Y7, Y0, Y0
	VSUBPD  Y7, Y1, Y1
	VMAXPD  Y8, Y0, Y0
	VMAXPD  Y8, Y1, Y1
	VMINPD  (DX)(AX*8), Y0, Y0
	VMINPD  32(DX)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      c2loop

c2done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------- tiny blocks
//
// Horizontal reductions of Z2 into the low lane of X2, in the order of
// Lanes.Reduce: ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)). Clobber Y3.
#define TREE(OPPD, OPSD) \
	VEXTRACTF64X4 $1, Z2, Y3; \
	OPPD          Y3, Y2, Y2; \
	VEXTRACTF128  $1, Y2, X3; \
	OPPD          X3, X2, X2; \
	VPERMILPD     $1, X2, X3; \
	OPSD          X3, X2, X2

// 8 all-ones qwords, then 8 zero qwords: the masks of lanes < n start at
// tailmask<> + (8-n)*8.
DATA tailmask<>+0(SB)/8, $-1
DATA tailmask<>+8(SB)/8, $-1
DATA tailmask<>+16(SB)/8, $-1
DATA tailmask<>+24(SB)/8, $-1
DATA tailmask<>+32(SB)/8, $-1
DATA tailmask<>+40(SB)/8, $-1
DATA tailmask<>+48(SB)/8, $-1
DATA tailmask<>+56(SB)/8, $-1
DATA tailmask<>+64(SB)/8, $0
DATA tailmask<>+72(SB)/8, $0
DATA tailmask<>+80(SB)/8, $0
DATA tailmask<>+88(SB)/8, $0
DATA tailmask<>+96(SB)/8, $0
DATA tailmask<>+104(SB)/8, $0
DATA tailmask<>+112(SB)/8, $0
DATA tailmask<>+120(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $128

// The phi values P of keys K, one ymm pair: Y2 = max(Y2, K where P > c,
// else -Inf), Y3 = min(Y3, K where P <= c and K > 0, else +Inf).
// Y6 = 0, Y7 = c; clobbers Y12-Y15.
#define TINYSEL2(K, P) \
	VCMPPD  $0x1e, Y7, P, Y14; \
	VANDPD  K, Y14, Y15;       \
	VANDNPD NINF, Y14, Y12;    \
	VORPD   Y12, Y15, Y15;     \
	VMAXPD  Y2, Y15, Y2;       \
	VCMPPD  $0x12, Y7, P, Y14; \
	VCMPPD  $0x1e, Y6, K, Y13; \
	VANDPD  Y13, Y14, Y14;     \
	VANDPD  K, Y14, Y15;       \
	VANDNPD PINF, Y14, Y12;    \
	VORPD   Y12, Y15, Y15;     \
	VMINPD  Y3, Y15, Y3

// One key vector K against coordinate j (Y12 = z_j, Y13 = u_j):
// P += clip(z_j - K, 0, u_j). Clobbers T.
#define TINYACC2(K, P, T) \
	VSUBPD K, Y12, T; \
	VMAXPD Y6, T, T;  \
	VMINPD Y13, T, T; \
	VADDPD T, P, P


// ---------------------------------------------------------------- tiny solve
//
// TinySolve: TinyBrackets, then the root of the linear piece [Lo, Hi]
// (the classification at its midpoint, sum in the order of Lanes.Reduce,
// tau = min(max((sum-c)/m, Lo), Hi), Hi if no coordinate is free), then
// dst = min(max(z - tau, 0), u) with a masked store. The operations and
// their operand order are those of the Go reference (tinySolveGo).

DATA tconst<>+0(SB)/8, $0.5
GLOBL tconst<>(SB), RODATA|NOPTR, $8

#define HALF tconst<>+0(SB)

// func tinySolveAVX512(r *Tiny, dst, z, u []float64, c float64)
// 1 <= len(z) <= 8, len(dst) and len(u) >= len(z); lanes >= len(z) are
// masked off (K6).
TEXT ·tinySolveAVX512(SB), NOSPLIT, $0-88
	MOVQ         r+0(FP), DI
	MOVQ         dst_base+8(FP), BX
	MOVQ         z_base+32(FP), SI
	MOVQ         z_len+40(FP), R9
	MOVQ         u_base+56(FP), DX
	VBROADCASTSD c+80(FP), Z7
	TAILMASK
	VPXORQ       Z8, Z8, Z8
	VMOVUPD.Z    (SI), K6, Z0
	VMOVUPD.Z    (DX), K6, Z1

	// The check: a NaN in (z-z)+(u-u), or u < 0.
	VSUBPD   Z0, Z0, Z2
	VSUBPD   Z1, Z1, Z3
	VADDPD   Z3, Z2, Z2
	VCMPPD   $3, Z2, Z2, K1
	VCMPPD   $0x11, Z8, Z1, K2
	KORW     K1, K2, K1
	KORTESTW K1, K1
	JNE      tsbad

	// phi(0) = sum of clip(z, 0, u) over the lanes.
	VMAXPD  Z8, Z0, Z2
	VMINPD  Z1, Z2, Z2
	TREE(VADDPD, VADDSD)
	VMOVSD  X2, 0(DI)
	UCOMISD X7, X2
	JA      tsbinds
	MOVQ    $0, 24(DI)
	VPXORQ  Z5, Z5, Z5
	VMOVSD  X5, 32(DI)
	JMP     tsclip

tsbinds:
	// The bracket: keys z (Z0) and z - u (Z9); phi at each key,
	// coordinate by coordinate: Z10 and Z11 += clip(z_j - key, 0, u_j);
	// then lo = max(0, keys with phi > c), hi = min(+Inf, keys > 0 with
	// phi <= c); K5, K7: the keys > 0.
	VSUBPD Z1, Z0, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	XORQ   AX, AX

tsloop:
	VBROADCASTSD (SI)(AX*8), Z2
	VBROADCASTSD (DX)(AX*8), Z3
	VSUBPD       Z0, Z2, Z4
	VSUBPD       Z9, Z2, Z5
	VMAXPD       Z8, Z4, Z4
	VMAXPD       Z8, Z5, Z5
	VMINPD       Z3, Z4, Z4
	VMINPD       Z3, Z5, Z5
	VADDPD       Z4, Z10, Z10
	VADDPD       Z5, Z11, Z11
	INCQ         AX
	CMPQ         AX, R9
	JB           tsloop

	VCMPPD       $0x1e, Z8, Z0, K6, K5
	VCMPPD       $0x1e, Z8, Z9, K6, K7
	VCMPPD       $0x1e, Z7, Z10, K6, K1
	VCMPPD       $0x12, Z7, Z10, K5, K2
	VCMPPD       $0x1e, Z7, Z11, K6, K3
	VCMPPD       $0x12, Z7, Z11, K7, K4
	VBROADCASTSD NINF, Z12
	VBROADCASTSD PINF, Z13
	VBLENDMPD    Z0, Z12, K1, Z14
	VBLENDMPD    Z9, Z12, K3, Z15
	VMAXPD       Z15, Z14, Z2
	TREE(VMAXPD, VMAXSD)
	VMAXSD       X8, X2, X2
	VMOVSD       X2, 8(DI)
	VBLENDMPD    Z0, Z13, K2, Z16
	VBLENDMPD    Z9, Z13, K4, Z17
	VMINPD       Z17, Z16, Z2
	TREE(VMINPD, VMINSD)
	VMOVSD       X2, 16(DI)
	MOVQ         $1, 24(DI)

	// The root: lo X10, hi X11 (TREE clobbers Y3), mid = lo + (hi-lo)/2;
	// free (K3) and capped (K4) lanes at mid; sum of u on capped and z on
	// free; m = free lanes.
	VMOVSD       8(DI), X10
	VMOVSD       16(DI), X11
	VSUBSD       X10, X11, X5
	VMULSD       HALF, X5, X5
	VADDSD       X5, X10, X5
	VBROADCASTSD X5, Z5
	VSUBPD       Z5, Z0, Z6
	VCMPPD       $0x1e, Z8, Z6, K6, K1
	VCMPPD       $0x11, Z1, Z6, K1, K3
	VCMPPD       $0x15, Z1, Z6, K1, K4
	VMOVAPD.Z    Z1, K4, Z2
	VMOVAPD      Z0, K3, Z2
	TREE(VADDPD, VADDSD)
	KMOVW        K3, AX
	POPCNTL      AX, AX
	TESTL        AX, AX
	JE           tshi
	VCVTSI2SDL   AX, X9, X9
	VSUBSD       X7, X2, X2
	VDIVSD       X9, X2, X2
	VMAXSD       X10, X2, X2
	VMINSD       X11, X2, X2
	JMP          tstau

tshi:
	VMOVAPD X11, X2

tstau:
	VMOVSD       X2, 32(DI)
	VBROADCASTSD X2, Z5

tsclip:
	// dst = min(max(z - tau, 0), u), lanes < len(z) only.
	VSUBPD  Z5, Z0, Z0
	VMAXPD  Z8, Z0, Z0
	VMINPD  Z1, Z0, Z0
	VMOVUPD Z0, K6, (BX)
	VZEROUPPER
	RET

tsbad:
	MOVQ $-1, 24(DI)
	VZEROUPPER
	RET

// func tinySolveAVX2(r *Tiny, dst, z, u []float64, c float64)
// 1 <= len(z) <= 8, len(dst) and len(u) >= len(z). z and u are loaded
// with VMASKMOVPD (lanes >= len(z) read as 0 and never touch memory):
// lanes 0-3 in Y0 (z), Y2 (u), lanes 4-7 in Y1, Y3. A lane beyond len(z)
// has the keys 0, which change neither Lo (max with 0) nor Hi (keys > 0
// only), as TinyBrackets' loop. Then the root and the clip, with masked
// stores (Y14, Y15).
TEXT ·tinySolveAVX2(SB), NOSPLIT, $0-88
	MOVQ         r+0(FP), DI
	MOVQ         dst_base+8(FP), R10
	MOVQ         z_base+32(FP), SI
	MOVQ         z_len+40(FP), R9
	MOVQ         u_base+56(FP), DX
	VBROADCASTSD c+80(FP), Y7
	MOVQ         $8, AX
	SUBQ         R9, AX
	LEAQ         tailmask<>(SB), R8
	LEAQ         (R8)(AX*8), R8
	VMOVDQU      (R8), Y14
	VMOVDQU      32(R8), Y15
	VMASKMOVPD   (SI), Y14, Y0
	VMASKMOVPD   32(SI), Y15, Y1
	VMASKMOVPD   (DX), Y14, Y2
	VMASKMOVPD   32(DX), Y15, Y3
	VXORPD       Y6, Y6, Y6

	VSUBPD    Y0, Y0, Y8
	VSUBPD    Y2, Y2, Y9
	VADDPD    Y9, Y8, Y8
	VSUBPD    Y1, Y1, Y10
	VSUBPD    Y3, Y3, Y11
	VADDPD    Y11, Y10, Y10
	VADDPD    Y10, Y8, Y8
	VCMPPD    $3, Y8, Y8, Y8
	VCMPPD    $0x11, Y6, Y2, Y9
	VCMPPD    $0x11, Y6, Y3, Y10
	VORPD     Y9, Y8, Y8
	VORPD     Y10, Y8, Y8
	VMOVMSKPD Y8, AX
	TESTL     AX, AX
	JNE       ts2bad

	VMAXPD       Y6, Y0, Y8
	VMINPD       Y2, Y8, Y8
	VMAXPD       Y6, Y1, Y9
	VMINPD       Y3, Y9, Y9
	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPD       X9, X8, X8
	VPERMILPD    $1, X8, X9
	VADDSD       X9, X8, X8
	VMOVSD       X8, 0(DI)
	UCOMISD      X7, X8
	JA           ts2binds
	MOVQ         $0, 24(DI)
	VXORPD       Y12, Y12, Y12
	VMOVSD       X12, 32(DI)
	JMP          ts2clip

ts2binds:
	VSUBPD Y2, Y0, Y4
	VSUBPD Y3, Y1, Y5
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	XORQ   AX, AX

ts2loop:
	VBROADCASTSD (SI)(AX*8), Y12
	VBROADCASTSD (DX)(AX*8), Y13
	TINYACC2(Y0, Y8, Y14)
	TINYACC2(Y1, Y9, Y15)
	TINYACC2(Y4, Y10, Y14)
	TINYACC2(Y5, Y11, Y15)
	INCQ         AX
	CMPQ         AX, R9
	JB           ts2loop

	VBROADCASTSD NINF, Y2
	VBROADCASTSD PINF, Y3
	TINYSEL2(Y0, Y8)
	TINYSEL2(Y1, Y9)
	TINYSEL2(Y4, Y10)
	TINYSEL2(Y5, Y11)
	VEXTRACTF128 $1, Y2, X12
	VMAXPD       X12, X2, X2
	VPERMILPD    $1, X2, X12
	VMAXSD       X12, X2, X2
	VMAXSD       X6, X2, X2
	VMOVSD       X2, 8(DI)
	VEXTRACTF128 $1, Y3, X12
	VMINPD       X12, X3, X3
	VPERMILPD    $1, X3, X12
	VMINSD       X12, X3, X3
	VMOVSD       X3, 16(DI)
	MOVQ         $1, 24(DI)

	// Reload the masks and u (clobbered by the bracket).
	VMOVDQU    (R8), Y14
	VMOVDQU    32(R8), Y15
	VMASKMOVPD (DX), Y14, Y2
	VMASKMOVPD 32(DX), Y15, Y3

	// The root: lo X10, hi X11, mid broadcast in Y12.
	VMOVSD       8(DI), X10
	VMOVSD       16(DI), X11
	VSUBSD       X10, X11, X12
	VMULSD       HALF, X12, X12
	VADDSD       X12, X10, X12
	VBROADCASTSD X12, Y12

	// Lanes 0-3: S in Y13, free count in AX.
	VSUBPD    Y12, Y0, Y4
	VCMPPD    $0x1e, Y6, Y4, Y5
	VCMPPD    $0x11, Y2, Y4, Y4
	VANDPD    Y5, Y4, Y8
	VANDNPD   Y5, Y4, Y9
	VMOVMSKPD Y8, AX
	VANDPD    Y2, Y9, Y9
	VANDPD    Y0, Y8, Y8
	VORPD     Y9, Y8, Y13

	// Lanes 4-7: S in Y8, free count in BX.
	VSUBPD    Y12, Y1, Y4
	VCMPPD    $0x1e, Y6, Y4, Y5
	VCMPPD    $0x11, Y3, Y4, Y4
	VANDPD    Y5, Y4, Y8
	VANDNPD   Y5, Y4, Y9
	VMOVMSKPD Y8, BX
	VANDPD    Y3, Y9, Y9
	VANDPD    Y1, Y8, Y8
	VORPD     Y9, Y8, Y8

	VADDPD       Y8, Y13, Y13
	VEXTRACTF128 $1, Y13, X8
	VADDPD       X8, X13, X13
	VPERMILPD    $1, X13, X8
	VADDSD       X8, X13, X13
	POPCNTL      AX, AX
	POPCNTL      BX, BX
	ADDL         BX, AX
	TESTL        AX, AX
	JE           ts2hi
	VCVTSI2SDL   AX, X9, X9
	VSUBSD       X7, X13, X13
	VDIVSD       X9, X13, X13
	VMAXSD       X10, X13, X13
	VMINSD       X11, X13, X13
	JMP          ts2tau

ts2hi:
	VMOVAPD X11, X13

ts2tau:
	VMOVSD       X13, 32(DI)
	VBROADCASTSD X13, Y12

ts2clip:
	VSUBPD     Y12, Y0, Y0
	VSUBPD     Y12, Y1, Y1
	VMAXPD     Y6, Y0, Y0
	VMAXPD     Y6, Y1, Y1
	VMINPD     Y2, Y0, Y0
	VMINPD     Y3, Y1, Y1
	VMASKMOVPD Y0, Y14, (R10)
	VMASKMOVPD Y1, Y15, 32(R10)
	VZEROUPPER
	RET

ts2bad:
	MOVQ $-1, 24(DI)
	VZEROUPPER
	RET
