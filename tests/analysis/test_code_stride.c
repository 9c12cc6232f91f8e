/* SPDX-License-Identifier: BSD-3-Clause */
/* Strides from the code (extract/code_stride.c): a table of loops, as bytes
 * assembled by GNU as from the AT&T text in each case's description (the
 * first cases are the inner loops gcc -O2 emits for examples/matmul.c),
 * the sampled instruction's offset, and the expected status and stride;
 * each case reports its line on failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "extract/code_stride.h"

/* Where every case's code lies. */
#define CODE_AT 0x401000ull

typedef struct stride_case {
    int         line;
    const char *what;
    uint8_t     code[48];
    size_t      len;
    size_t      ip;        /* offset of the sampled instruction in code */
    int         status;
    int64_t     bytes;
    int64_t     sweep;     /* with the loop's other references (tf_code_stride.sweep) */
} stride_case;

#define FOUND TF_CODE_STRIDE_FOUND
#define NO_LOOP TF_CODE_STRIDE_NO_LOOP
#define NOT_IND TF_CODE_STRIDE_NOT_INDUCTION
#define NO_OP TF_CODE_STRIDE_NO_OPERAND
#define UNDEC TF_CODE_STRIDE_UNDECODABLE

/* C(what, {bytes}, ip offset, status, stride): the sweep is the stride;
 * SW(what, {bytes}, ip offset, stride, sweep): found, with its sweep */
#define C(what, bytes, ip, status, stride)                                                  \
    { __LINE__, what, bytes, sizeof((uint8_t[])bytes), ip, status, stride, stride }
#define SW(what, bytes, ip, stride, sweep)                                                  \
    { __LINE__, what, bytes, sizeof((uint8_t[])bytes), ip, FOUND, stride, sweep }
#define B(...) { __VA_ARGS__ }

/* 1: movsd (%rsi),%xmm0; mulsd (%rdx),%xmm0; add $0x800,%rdx; add $0x8,%rsi;
 *    addsd %xmm0,%xmm1; cmp %rdx,%r8; jne 1b; ret  (mm_naive, N = 256) */
#define NAIVE B(0xf2, 0x0f, 0x10, 0x06, 0xf2, 0x0f, 0x59, 0x02, 0x48, 0x81, 0xc2, 0x00, 0x08, \
                0x00, 0x00, 0x48, 0x83, 0xc6, 0x08, 0xf2, 0x0f, 0x58, 0xc8, 0x49, 0x39, 0xd0,   \
                0x75, 0xe4, 0xc3)

/* 1: movsd (%rax),%xmm0; mulsd (%rsi),%xmm0; add $8,%rax; sub %r15,%rsi;
 *    addsd %xmm0,%xmm1; cmp %rax,%rcx; jne 1b; ret  (mm_naive, N at run time) */
#define RUNTIME_N B(0xf2, 0x0f, 0x10, 0x00, 0xf2, 0x0f, 0x59, 0x06, 0x48, 0x83, 0xc0, 0x08, \
                    0x4c, 0x29, 0xfe, 0xf2, 0x0f, 0x58, 0xc8, 0x48, 0x39, 0xc1, 0x75, 0xe8, \
                    0xc3)

/* 1: cmp %r9,%rax; jae 2f; mov %rax,%rdx; shl $0xb,%rdx; movsd (%r8,%rdx,1),%xmm0;
 *    mulsd (%r11,%rax,8),%xmm0; add $1,%rax; addsd %xmm0,%xmm1; cmp $0x100,%rax;
 *    jne 1b; 2: ret  (H&P's blocked dot product, examples/matmul's first
 *    mm_blocked, N = 256: the row offset k x N x 8 computed from k each iteration) */
#define BLOCKED B(0x4c, 0x39, 0xc8, 0x73, 0x23, 0x48, 0x89, 0xc2, 0x48, 0xc1, 0xe2, 0x0b, \
                  0xf2, 0x41, 0x0f, 0x10, 0x04, 0x10, 0xf2, 0x41, 0x0f, 0x59, 0x04, 0xc3, \
                  0x48, 0x83, 0xc0, 0x01, 0xf2, 0x0f, 0x58, 0xc8, 0x48, 0x3d, 0x00, 0x01, \
                  0x00, 0x00, 0x75, 0xd8, 0xc3)

/* 1: movupd (%rsi),%xmm0; movupd 16(%rsi),%xmm1; movups %xmm0,(%rdi);
 *    movups %xmm1,16(%rdi); add $32,%rsi; add $32,%rdi; cmp %rsi,%rax; jne 1b; ret */
#define UNROLLED_COPY B(0x66, 0x0f, 0x10, 0x06, 0x66, 0x0f, 0x10, 0x4e, 0x10, 0x0f, 0x11, 0x07, \
                        0x0f, 0x11, 0x4f, 0x10, 0x48, 0x83, 0xc6, 0x20, 0x48, 0x83, 0xc7, 0x20, \
                        0x48, 0x39, 0xf0, 0x75, 0xe3, 0xc3)
/* 1: vmovdqu -32(%rsi),%ymm0; ... -64, -96, -128(%rsi); sub $128,%rsi; cmp %rsi,%rax;
 *    jne 1b; ret  (the shape of glibc's backward memmove loop) */
#define BACKWARD_COPY B(0xc5, 0xfe, 0x6f, 0x46, 0xe0, 0xc5, 0xfe, 0x6f, 0x4e, 0xc0, 0xc5, 0xfe, \
                        0x6f, 0x56, 0xa0, 0xc5, 0xfe, 0x6f, 0x5e, 0x80, 0x48, 0x81, 0xee, 0x80, \
                        0x00, 0x00, 0x00, 0x48, 0x39, 0xf0, 0x75, 0xe0, 0xc3)
/* 1: movsd (%rsi),%xmm0; addsd 8(%rsi),%xmm0; add $2048,%rsi; cmp %rsi,%rax; jne 1b; ret */
#define PAIR_PER_ROW B(0xf2, 0x0f, 0x10, 0x06, 0xf2, 0x0f, 0x58, 0x46, 0x08, 0x48, 0x81, 0xc6, \
                       0x00, 0x08, 0x00, 0x00, 0x48, 0x39, 0xf0, 0x75, 0xeb, 0xc3)

static const stride_case cases[] = {
    C("mm_naive: z walked by column (add $0x800,%rdx)", NAIVE, 4, FOUND, 2048),
    C("mm_naive: y walked along its row (add $0x8,%rsi)", NAIVE, 0, FOUND, 8),
    C("N at run time: the step is a register (sub %r15,%rsi)", RUNTIME_N, 4, NOT_IND, 0),
    C("... and the other load of that loop still has its constant step", RUNTIME_N, 0, FOUND,
      8),
    /* 1: movsd (%rsi,%rax,8),%xmm0; mulsd %xmm1,%xmm0; movsd %xmm0,(%rdx,%rax,8);
     *    add $1,%rax; cmp $0x100,%rax; jne 1b */
    C("index register times scale 8 (mm_ikj's row walk)",
      B(0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x59, 0xc1, 0xf2, 0x0f, 0x11, 0x04, 0xc2,
        0x48, 0x83, 0xc0, 0x01, 0x48, 0x3d, 0x00, 0x01, 0x00, 0x00, 0x75, 0xe6, 0xc3),
      9, FOUND, 8),
    /* 1: vmovdqu (%rsi),%ymm0; vmovdqu %ymm0,(%rdi); sub $-0x80,%rsi; sub $-0x80,%rdi;
     *    cmp %rsi,%rdx; ja 1b */
    C("sub of a negative immediate advances (memmove's 4x loop)",
      B(0xc5, 0xfe, 0x6f, 0x06, 0xc5, 0xfe, 0x7f, 0x07, 0x48, 0x83, 0xee, 0x80, 0x48, 0x83,
        0xef, 0x80, 0x48, 0x39, 0xf2, 0x77, 0xeb, 0xc3),
      4, FOUND, 128),
    /* 1: mov (%rdi),%rax; lea 0x10(%rdi),%rdi; add %rax,%rbx; cmp %rdi,%rsi; jne 1b */
    C("lea 0x10(%rdi),%rdi",
      B(0x48, 0x8b, 0x07, 0x48, 0x8d, 0x7f, 0x10, 0x48, 0x01, 0xc3, 0x48, 0x39, 0xfe, 0x75,
        0xf1, 0xc3),
      0, FOUND, 16),
    /* 1: mov (%rax,%rcx,4),%edx; add %edx,%ebx; dec %rcx; jnz 1b */
    C("dec of the index, scale 4: down 4 bytes",
      B(0x8b, 0x14, 0x88, 0x01, 0xd3, 0x48, 0xff, 0xc9, 0x75, 0xf6, 0xc3), 0, FOUND, -4),
    /* 1: movsd 8(%rsi,%rax,8),%xmm0; add $0x20,%rsi; inc %rax; cmp %rax,%rdx; jne 1b */
    C("base and index both move: 32 + 1 x 8",
      B(0xf2, 0x0f, 0x10, 0x44, 0xc6, 0x08, 0x48, 0x83, 0xc6, 0x20, 0x48, 0xff, 0xc0, 0x48,
        0x39, 0xc2, 0x75, 0xee, 0xc3),
      0, FOUND, 40),
    /* 1: movsd (%rsi),%xmm0; add $8,%rsi; addsd %xmm0,%xmm1; add $8,%rsi; cmp; jne 1b */
    C("two updates in one iteration add up (unrolled by 2)",
      B(0xf2, 0x0f, 0x10, 0x06, 0x48, 0x83, 0xc6, 0x08, 0xf2, 0x0f, 0x58, 0xc8, 0x48, 0x83,
        0xc6, 0x08, 0x48, 0x39, 0xf2, 0x75, 0xeb, 0xc3),
      0, FOUND, 16),
    /* 1: movl (%rdx,%rax,8)...; add $1,%eax; cmp %eax,%ecx; jne 1b */
    C("32-bit update of the index register",
      B(0xf2, 0x0f, 0x10, 0x04, 0xc2, 0xf2, 0x0f, 0x58, 0xc8, 0x83, 0xc0, 0x01, 0x39, 0xc1,
        0x75, 0xf0, 0xc3),
      0, FOUND, 8),
    /* jmp 2f; 1: movsd (%rcx,%rax,1),%xmm1; 2: movsd (%rdx,%rax,1),%xmm0; addsd;
     * movsd %xmm0,(%rcx,%rax,1); add $8,%rax; cmp %rax,%rsi; jne 1b */
    C("a loop entered in its middle (gcc's rotated mm_ikj)",
      B(0xeb, 0x05, 0xf2, 0x0f, 0x10, 0x0c, 0x01, 0xf2, 0x0f, 0x10, 0x04, 0x02, 0xf2, 0x0f,
        0x58, 0xc1, 0xf2, 0x0f, 0x11, 0x04, 0x01, 0x48, 0x83, 0xc0, 0x08, 0x48, 0x39, 0xc6,
        0x75, 0xe4, 0xc3),
      7, FOUND, 8),
    /* 1: movsd 0x100(%rip),%xmm0; addsd %xmm0,%xmm1; dec %rcx; jnz 1b */
    C("rip-relative: the loop does not move it",
      B(0xf2, 0x0f, 0x10, 0x05, 0x00, 0x01, 0x00, 0x00, 0xf2, 0x0f, 0x58, 0xc8, 0x48, 0xff,
        0xc9, 0x75, 0xef, 0xc3),
      0, FOUND, 0),
    /* 1: movsd (%rbx),%xmm0; call 2f; add $8,%rbx; cmp %rbx,%r12; jne 1b; ret; 2: ret */
    C("a call keeps rbx (callee-saved)",
      B(0xf2, 0x0f, 0x10, 0x03, 0xe8, 0x0a, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc3, 0x08, 0x49,
        0x39, 0xdc, 0x75, 0xee, 0xc3, 0xc3),
      0, FOUND, 8),
    /* movsd (%rsi),%xmm0; add $8,%rsi; ret */
    C("straight-line code: no loop",
      B(0xf2, 0x0f, 0x10, 0x06, 0x48, 0x83, 0xc6, 0x08, 0xc3), 0, NO_LOOP, 0),
    C("the instruction outside the code given", NAIVE, 40, NO_LOOP, 0),
    /* same, as call_keeps but with rsi */
    C("a call may change rsi (caller-saved)",
      B(0xf2, 0x0f, 0x10, 0x06, 0xe8, 0x0a, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc6, 0x08, 0x48,
        0x39, 0xf2, 0x75, 0xee, 0xc3, 0xc3),
      0, NOT_IND, 0),
    /* 1: movsd (%rsi),%xmm0; 2: add $8,%rsi; dec %rcx; jnz 2b; cmp %rsi,%rdx; jne 1b */
    C("updated in a loop nested in the body: not once per iteration",
      B(0xf2, 0x0f, 0x10, 0x06, 0x48, 0x83, 0xc6, 0x08, 0x48, 0xff, 0xc9, 0x75, 0xf7, 0x48,
        0x39, 0xf2, 0x75, 0xee, 0xc3),
      0, NOT_IND, 0),
    C("derived register: mov from the induction register, then shl 11", BLOCKED, 12, FOUND,
      2048),
    C("... and the basic one beside it", BLOCKED, 18, FOUND, 8),
    /* 1: lea 0(,%rcx,8),%rdx; movsd (%rsi,%rdx,2),%xmm0; addsd; inc %rcx; cmp; jne 1b */
    C("derived by lea: 8 x 1, times scale 2",
      B(0x48, 0x8d, 0x14, 0xcd, 0x00, 0x00, 0x00, 0x00, 0xf2, 0x0f, 0x10, 0x04, 0x56, 0xf2,
        0x0f, 0x58, 0xc8, 0x48, 0xff, 0xc1, 0x48, 0x39, 0xcf, 0x75, 0xe7, 0xc3),
      8, FOUND, 16),
    /* 1: imul $0x30,%rcx,%rdx; add $0x10,%rdx; movsd (%rsi,%rdx,1),%xmm0; addsd;
     *    add $2,%rcx; cmp; jne 1b */
    C("derived by imul, plus a constant: 48 x 2",
      B(0x48, 0x6b, 0xd1, 0x30, 0x48, 0x83, 0xc2, 0x10, 0xf2, 0x0f, 0x10, 0x04, 0x16, 0xf2,
        0x0f, 0x58, 0xc8, 0x48, 0x83, 0xc1, 0x02, 0x48, 0x39, 0xcf, 0x75, 0xe6, 0xc3),
      8, FOUND, 96),
    /* 1: mov (%rdi),%rbx; mov %rbx,%rdx; movsd (%rsi,%rdx,8),%xmm0; addsd; add $8,%rdi;
     *    cmp; jne 1b */
    C("copied from a register loaded each iteration (an index array)",
      B(0x48, 0x8b, 0x1f, 0x48, 0x89, 0xda, 0xf2, 0x0f, 0x10, 0x04, 0xd6, 0xf2, 0x0f, 0x58,
        0xc8, 0x48, 0x83, 0xc7, 0x08, 0x48, 0x39, 0xf9, 0x75, 0xe8, 0xc3),
      6, NOT_IND, 0),
    /* 1: mov (%rax),%rax; test %rax,%rax; jnz 1b */
    C("pointer chasing: the address is loaded",
      B(0x48, 0x8b, 0x00, 0x48, 0x85, 0xc0, 0x75, 0xf8, 0xc3), 0, NOT_IND, 0),
    /* 1: movsb; dec %rcx; jnz 1b */
    C("string instruction: two memory operands",
      B(0xa4, 0x48, 0xff, 0xc9, 0x75, 0xfa, 0xc3), 0, NO_OP, 0),
    /* 1: lea (%rsi),%rax; add $8,%rsi; cmp %rsi,%rdx; jne 1b */
    C("lea makes no reference",
      B(0x48, 0x8d, 0x06, 0x48, 0x83, 0xc6, 0x08, 0x48, 0x39, 0xf2, 0x75, 0xf4, 0xc3), 0,
      NO_OP, 0),
    /* movabs $0xb877665544332211,%rax; 1': movsd (%rsi),%xmm0; add $8,%rsi; jne <offset 9>:
     * the back edge lands inside the movabs, and decoding from there runs over the load */
    C("a back edge into the middle of an instruction",
      B(0x48, 0xb8, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0xb8, 0xf2, 0x0f, 0x10, 0x06,
        0x48, 0x83, 0xc6, 0x08, 0x75, 0xf5, 0xc3),
      10, UNDEC, 0),
    C("bytes that are no instruction", B(0x0f, 0x0b, 0xff, 0xff), 2, UNDEC, 0),
    /* the sweep: the loop's references through the same registers together */
    SW("unrolled copy, first load: two 16-byte loads tile 32", UNROLLED_COPY, 0, 32, 16),
    SW("unrolled copy, second store", UNROLLED_COPY, 12, 32, 16),
    SW("backward copy: four 32-byte loads tile 128 downwards", BACKWARD_COPY, 5, -128, -32),
    SW("two loads 8 bytes apart per 2048: no sweep", PAIR_PER_ROW, 4, 2048, 2048),
};

static void table(void **state)
{
    tf_code_stride_decoder *d;
    tf_error err;
    assert_int_equal(tf_code_stride_decoder_create(&d, &err), 0);
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const stride_case *c = &cases[i];
        tf_code_stride got;
        int st = tf_code_stride_find(d, c->code, c->len, CODE_AT, CODE_AT + c->ip, &got);
        if (st != got.status || st != c->status || got.bytes != c->bytes ||
            got.sweep != c->sweep) {
            print_error("%s:%d: %s: got %s, %lld bytes, sweep %lld; expected %s, %lld, %lld\n",
                        __FILE__, c->line, c->what, tf_code_stride_status_name(st),
                        (long long)got.bytes, (long long)got.sweep,
                        tf_code_stride_status_name(c->status), (long long)c->bytes,
                        (long long)c->sweep);
            failed++;
        }
    }
    tf_code_stride_decoder_free(d);
    assert_int_equal(failed, 0);
}

/* The access width: the memory operand's size, the widest of a tiled
 * sweep, known without a loop too, none for a string instruction. */
static void access_widths(void **state)
{
    /* 1: vmovdqu64 (%rsi),%zmm16; vmovdqu64 %zmm16,(%rdi); add $64,%rsi; add $64,%rdi;
     *    dec %rcx; jnz 1b; ret  (an AVX-512 copy: 64 bytes per access, stride 64) */
    static const uint8_t avx512_copy[] = { 0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x06, 0x62, 0xe1,
                                           0xfe, 0x48, 0x7f, 0x07, 0x48, 0x83, 0xc6, 0x40,
                                           0x48, 0x83, 0xc7, 0x40, 0x48, 0xff, 0xc9, 0x75,
                                           0xe7, 0xc3 };
    static const uint8_t naive[] = NAIVE, unrolled[] = UNROLLED_COPY;
    /* movsd (%rsi),%xmm0; add $8,%rsi; ret */
    static const uint8_t straight[] = { 0xf2, 0x0f, 0x10, 0x06, 0x48, 0x83, 0xc6, 0x08, 0xc3 };
    /* 1: movsb; dec %rcx; jnz 1b */
    static const uint8_t movsb[] = { 0xa4, 0x48, 0xff, 0xc9, 0x75, 0xfa, 0xc3 };
    const struct {
        const uint8_t *code;
        size_t len, ip;
        int status;
        int64_t sweep;
        uint32_t width;
    } want[] = {
        { avx512_copy, sizeof avx512_copy, 0, FOUND, 64, 64 },
        { avx512_copy, sizeof avx512_copy, 6, FOUND, 64, 64 },
        { naive, sizeof naive, 0, FOUND, 8, 8 },
        { unrolled, sizeof unrolled, 0, FOUND, 16, 16 },
        { straight, sizeof straight, 0, NO_LOOP, 0, 8 },
        { movsb, sizeof movsb, 0, NO_OP, 0, 0 },
    };
    tf_code_stride_decoder *d;
    assert_int_equal(tf_code_stride_decoder_create(&d, NULL), 0);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        tf_code_stride got;
        int st = tf_code_stride_find(d, want[i].code, want[i].len, CODE_AT,
                                     CODE_AT + want[i].ip, &got);
        print_message("case %zu: %s, sweep %lld, width %u\n", i, tf_code_stride_status_name(st),
                      (long long)got.sweep, got.width);
        assert_int_equal(st, want[i].status);
        assert_int_equal(got.sweep, want[i].sweep);
        assert_int_equal(got.width, want[i].width);
    }
    tf_code_stride_decoder_free(d);
}

/* The loop found is the innermost one: its bounds are the back edge's. */
static void loop_bounds(void **state)
{
    static const uint8_t naive[] = NAIVE;
    tf_code_stride_decoder *d;
    assert_int_equal(tf_code_stride_decoder_create(&d, NULL), 0);
    tf_code_stride got;
    assert_int_equal(tf_code_stride_find(d, naive, sizeof naive, CODE_AT, CODE_AT + 4, &got),
                     TF_CODE_STRIDE_FOUND);
    assert_int_equal(got.loop_start, CODE_AT);
    assert_int_equal(got.loop_end, CODE_AT + 28);
    tf_code_stride_decoder_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table),
        cmocka_unit_test(loop_bounds),
        cmocka_unit_test(access_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
