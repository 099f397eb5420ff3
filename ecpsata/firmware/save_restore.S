/* SPDX-License-Identifier: BSD-2-Clause */
/* Register save and restore shared by every function's prologue and epilogue: the firmware is
 * compiled with GCC's -msave-restore, which replaces each function's run of stores and loads of
 * ra and s0..s11 by a call to __riscv_save_N (with `call t0, ...`: the link in t0) and a tail
 * call to __riscv_restore_N (N: s0..s(N-1) are saved besides ra). That saves about 4 KiB of
 * the 64 KiB ROM the firmware runs from, for a few cycles per call (the Makefile keeps the
 * files of the timed firmware loop out: doc/architecture.md). Defined here rather than taken
 * from the toolchain's libgcc, which not every RISC-V toolchain ships for rv32im.
 *
 * The frame is the one GCC lays out for these calls: the stack pointer moves down by
 * (N + 1) words rounded up to 16 bytes, ra is stored in the highest word, s0 below it, s1 below
 * that, and so on (s_k at 8 + 4k bytes below the caller's stack pointer). One entry serves the
 * four values of N that move the stack by the same amount: it saves the group's largest set,
 * which is harmless (a register saved and restored unchanged). t1 holds the caller's stack
 * pointer throughout; GCC treats t0 and t1 as clobbered by both calls. The stack pointer moves
 * before any store, so that an interrupt taken meanwhile cannot overwrite a saved register. */

	.section .text.save_restore, "ax", @progbits
	.balign 4

	.globl __riscv_save_12
	.globl __riscv_save_11, __riscv_save_10, __riscv_save_9, __riscv_save_8
	.globl __riscv_save_7, __riscv_save_6, __riscv_save_5, __riscv_save_4
	.globl __riscv_save_3, __riscv_save_2, __riscv_save_1, __riscv_save_0

__riscv_save_12:
	addi	sp, sp, -64
	addi	t1, sp, 64
	j	.Lsave_s11
__riscv_save_11:
__riscv_save_10:
__riscv_save_9:
__riscv_save_8:
	addi	sp, sp, -48
	addi	t1, sp, 48
	j	.Lsave_s10
__riscv_save_7:
__riscv_save_6:
__riscv_save_5:
__riscv_save_4:
	addi	sp, sp, -32
	addi	t1, sp, 32
	j	.Lsave_s6
__riscv_save_3:
__riscv_save_2:
__riscv_save_1:
__riscv_save_0:
	addi	sp, sp, -16
	addi	t1, sp, 16
	j	.Lsave_s2
.Lsave_s11:
	sw	s11, -52(t1)
.Lsave_s10:
	sw	s10, -48(t1)
	sw	s9,  -44(t1)
	sw	s8,  -40(t1)
	sw	s7,  -36(t1)
.Lsave_s6:
	sw	s6,  -32(t1)
	sw	s5,  -28(t1)
	sw	s4,  -24(t1)
	sw	s3,  -20(t1)
.Lsave_s2:
	sw	s2,  -16(t1)
	sw	s1,  -12(t1)
	sw	s0,   -8(t1)
	sw	ra,   -4(t1)
	jr	t0

	.globl __riscv_restore_12
	.globl __riscv_restore_11, __riscv_restore_10, __riscv_restore_9, __riscv_restore_8
	.globl __riscv_restore_7, __riscv_restore_6, __riscv_restore_5, __riscv_restore_4
	.globl __riscv_restore_3, __riscv_restore_2, __riscv_restore_1, __riscv_restore_0

/* Reached by a tail call with the stack pointer where __riscv_save_N left it; returns to the
 * function's caller (ra restored), a0 and a1 untouched. */
__riscv_restore_12:
	addi	t1, sp, 64
	j	.Lrestore_s11
__riscv_restore_11:
__riscv_restore_10:
__riscv_restore_9:
__riscv_restore_8:
	addi	t1, sp, 48
	j	.Lrestore_s10
__riscv_restore_7:
__riscv_restore_6:
__riscv_restore_5:
__riscv_restore_4:
	addi	t1, sp, 32
	j	.Lrestore_s6
__riscv_restore_3:
__riscv_restore_2:
__riscv_restore_1:
__riscv_restore_0:
	addi	t1, sp, 16
	j	.Lrestore_s2
.Lrestore_s11:
	lw	s11, -52(t1)
.Lrestore_s10:
	lw	s10, -48(t1)
	lw	s9,  -44(t1)
	lw	s8,  -40(t1)
	lw	s7,  -36(t1)
.Lrestore_s6:
	lw	s6,  -32(t1)
	lw	s5,  -28(t1)
	lw	s4,  -24(t1)
	lw	s3,  -20(t1)
.Lrestore_s2:
	lw	s2,  -16(t1)
	lw	s1,  -12(t1)
	lw	s0,   -8(t1)
	lw	ra,   -4(t1)
	mv	sp, t1
	ret
