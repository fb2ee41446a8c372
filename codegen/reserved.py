"""Names a generated C file cannot take, made by `python3 -m codegen.make_reserved`
(do not edit by hand): the C11 and C23 keywords; the macros and the
file-scope identifiers of <stdint.h>, <stddef.h>, <stdbool.h>, <stdio.h>, <stdlib.h>, <string.h>, <errno.h>, <math.h>, <assert.h>, <stdalign.h>, <limits.h>, <float.h>
in C11 and GNU mode (gcc and clang, glibc); the predefined macros of GNU C;
the header names a world's `<world>.h` would hide. Identifiers that start
with an underscore are left out: C reserves them all at file scope, and
`_X` and `__x` everywhere, which names.py checks by their spelling."""

KEYWORDS = frozenset("""
    _Alignas _Alignof _Atomic _BitInt _Bool _Complex _Decimal128 _Decimal32 _Decimal64 _Generic
    _Imaginary _Noreturn _Static_assert _Thread_local alignas alignof auto bool break case char
    const constexpr continue default do double else enum extern false float for goto if inline int
    long nullptr register restrict return short signed sizeof static static_assert struct switch
    thread_local true typedef typeof typeof_unqual union unsigned void volatile while
""".split())

# Macros: no generated identifier, in any scope, may be one of these.
MACROS = frozenset("""
    AIO_PRIO_DELTA_MAX BC_BASE_MAX BC_DIM_MAX BC_SCALE_MAX BC_STRING_MAX BIG_ENDIAN BOOL_MAX
    BOOL_WIDTH BSD BUFSIZ BYTE_ORDER CHARCLASS_NAME_MAX CHAR_BIT CHAR_MAX CHAR_MIN CHAR_WIDTH
    COLL_WEIGHTS_MAX DBL_DECIMAL_DIG DBL_DIG DBL_EPSILON DBL_HAS_SUBNORM DBL_MANT_DIG DBL_MAX
    DBL_MAX_10_EXP DBL_MAX_EXP DBL_MIN DBL_MIN_10_EXP DBL_MIN_EXP DBL_TRUE_MIN DECIMAL_DIG
    DELAYTIMER_MAX E2BIG EACCES EADDRINUSE EADDRNOTAVAIL EADV EAFNOSUPPORT EAGAIN EALREADY EBADE
    EBADF EBADFD EBADMSG EBADR EBADRQC EBADSLT EBFONT EBUSY ECANCELED ECHILD ECHRNG ECOMM
    ECONNABORTED ECONNREFUSED ECONNRESET EDEADLK EDEADLOCK EDESTADDRREQ EDOM EDOTDOT EDQUOT EEXIST
    EFAULT EFBIG EHOSTDOWN EHOSTUNREACH EHWPOISON EIDRM EILSEQ EINPROGRESS EINTR EINVAL EIO EISCONN
    EISDIR EISNAM EKEYEXPIRED EKEYREJECTED EKEYREVOKED EL2HLT EL2NSYNC EL3HLT EL3RST ELIBACC ELIBBAD
    ELIBEXEC ELIBMAX ELIBSCN ELNRNG ELOOP EMEDIUMTYPE EMFILE EMLINK EMSGSIZE EMULTIHOP ENAMETOOLONG
    ENAVAIL ENETDOWN ENETRESET ENETUNREACH ENFILE ENOANO ENOBUFS ENOCSI ENODATA ENODEV ENOENT
    ENOEXEC ENOKEY ENOLCK ENOLINK ENOMEDIUM ENOMEM ENOMSG ENONET ENOPKG ENOPROTOOPT ENOSPC ENOSR
    ENOSTR ENOSYS ENOTBLK ENOTCONN ENOTDIR ENOTEMPTY ENOTNAM ENOTRECOVERABLE ENOTSOCK ENOTSUP ENOTTY
    ENOTUNIQ ENXIO EOF EOPNOTSUPP EOVERFLOW EOWNERDEAD EPERM EPFNOSUPPORT EPIPE EPROTO
    EPROTONOSUPPORT EPROTOTYPE ERANGE EREMCHG EREMOTE EREMOTEIO ERESTART ERFKILL EROFS ESHUTDOWN
    ESOCKTNOSUPPORT ESPIPE ESRCH ESRMNT ESTALE ESTRPIPE ETIME ETIMEDOUT ETOOMANYREFS ETXTBSY EUCLEAN
    EUNATCH EUSERS EWOULDBLOCK EXDEV EXFULL EXIT_FAILURE EXIT_SUCCESS EXPR_NEST_MAX FD_CLR FD_ISSET
    FD_SET FD_SETSIZE FD_ZERO FILENAME_MAX FLT_DECIMAL_DIG FLT_DIG FLT_EPSILON FLT_EVAL_METHOD
    FLT_HAS_SUBNORM FLT_MANT_DIG FLT_MAX FLT_MAX_10_EXP FLT_MAX_EXP FLT_MIN FLT_MIN_10_EXP
    FLT_MIN_EXP FLT_RADIX FLT_ROUNDS FLT_TRUE_MIN FOPEN_MAX FP_ILOGB0 FP_ILOGBNAN FP_INFINITE
    FP_INT_DOWNWARD FP_INT_TONEAREST FP_INT_TONEARESTFROMZERO FP_INT_TOWARDZERO FP_INT_UPWARD
    FP_LLOGB0 FP_LLOGBNAN FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO HOST_NAME_MAX HUGE_VAL HUGE_VALF
    HUGE_VALL HUGE_VAL_F128 HUGE_VAL_F32 HUGE_VAL_F32X HUGE_VAL_F64 HUGE_VAL_F64X INFINITY INT16_C
    INT16_MAX INT16_MIN INT16_WIDTH INT32_C INT32_MAX INT32_MIN INT32_WIDTH INT64_C INT64_MAX
    INT64_MIN INT64_WIDTH INT8_C INT8_MAX INT8_MIN INT8_WIDTH INTMAX_C INTMAX_MAX INTMAX_MIN
    INTMAX_WIDTH INTPTR_MAX INTPTR_MIN INTPTR_WIDTH INT_FAST16_MAX INT_FAST16_MIN INT_FAST16_WIDTH
    INT_FAST32_MAX INT_FAST32_MIN INT_FAST32_WIDTH INT_FAST64_MAX INT_FAST64_MIN INT_FAST64_WIDTH
    INT_FAST8_MAX INT_FAST8_MIN INT_FAST8_WIDTH INT_LEAST16_MAX INT_LEAST16_MIN INT_LEAST16_WIDTH
    INT_LEAST32_MAX INT_LEAST32_MIN INT_LEAST32_WIDTH INT_LEAST64_MAX INT_LEAST64_MIN
    INT_LEAST64_WIDTH INT_LEAST8_MAX INT_LEAST8_MIN INT_LEAST8_WIDTH INT_MAX INT_MIN INT_WIDTH
    IOV_MAX LDBL_DECIMAL_DIG LDBL_DIG LDBL_EPSILON LDBL_HAS_SUBNORM LDBL_MANT_DIG LDBL_MAX
    LDBL_MAX_10_EXP LDBL_MAX_EXP LDBL_MIN LDBL_MIN_10_EXP LDBL_MIN_EXP LDBL_TRUE_MIN LINE_MAX
    LITTLE_ENDIAN LLONG_MAX LLONG_MIN LLONG_WIDTH LOGIN_NAME_MAX LONG_BIT LONG_LONG_MAX
    LONG_LONG_MIN LONG_MAX LONG_MIN LONG_WIDTH L_ctermid L_cuserid L_tmpnam MATH_ERREXCEPT
    MATH_ERRNO MAXFLOAT MAX_CANON MAX_INPUT MB_CUR_MAX MB_LEN_MAX MIPSEB MIPSEL MQ_PRIO_MAX M_1_PI
    M_1_PIf M_1_PIf128 M_1_PIf32 M_1_PIf32x M_1_PIf64 M_1_PIf64x M_1_PIl M_2_PI M_2_PIf M_2_PIf128
    M_2_PIf32 M_2_PIf32x M_2_PIf64 M_2_PIf64x M_2_PIl M_2_SQRTPI M_2_SQRTPIf M_2_SQRTPIf128
    M_2_SQRTPIf32 M_2_SQRTPIf32x M_2_SQRTPIf64 M_2_SQRTPIf64x M_2_SQRTPIl M_E M_Ef M_Ef128 M_Ef32
    M_Ef32x M_Ef64 M_Ef64x M_El M_LN10 M_LN10f M_LN10f128 M_LN10f32 M_LN10f32x M_LN10f64 M_LN10f64x
    M_LN10l M_LN2 M_LN2f M_LN2f128 M_LN2f32 M_LN2f32x M_LN2f64 M_LN2f64x M_LN2l M_LOG10E M_LOG10Ef
    M_LOG10Ef128 M_LOG10Ef32 M_LOG10Ef32x M_LOG10Ef64 M_LOG10Ef64x M_LOG10El M_LOG2E M_LOG2Ef
    M_LOG2Ef128 M_LOG2Ef32 M_LOG2Ef32x M_LOG2Ef64 M_LOG2Ef64x M_LOG2El M_PI M_PI_2 M_PI_2f
    M_PI_2f128 M_PI_2f32 M_PI_2f32x M_PI_2f64 M_PI_2f64x M_PI_2l M_PI_4 M_PI_4f M_PI_4f128 M_PI_4f32
    M_PI_4f32x M_PI_4f64 M_PI_4f64x M_PI_4l M_PIf M_PIf128 M_PIf32 M_PIf32x M_PIf64 M_PIf64x M_PIl
    M_SQRT1_2 M_SQRT1_2f M_SQRT1_2f128 M_SQRT1_2f32 M_SQRT1_2f32x M_SQRT1_2f64 M_SQRT1_2f64x
    M_SQRT1_2l M_SQRT2 M_SQRT2f M_SQRT2f128 M_SQRT2f32 M_SQRT2f32x M_SQRT2f64 M_SQRT2f64x M_SQRT2l
    NAME_MAX NAN NFDBITS NGROUPS_MAX NL_ARGMAX NL_LANGMAX NL_MSGMAX NL_NMAX NL_SETMAX NL_TEXTMAX
    NULL NZERO PATH_MAX PDP_ENDIAN PIPE_BUF PTHREAD_DESTRUCTOR_ITERATIONS PTHREAD_KEYS_MAX
    PTHREAD_STACK_MIN PTRDIFF_MAX PTRDIFF_MIN PTRDIFF_WIDTH P_tmpdir RAND_MAX RENAME_EXCHANGE
    RENAME_NOREPLACE RENAME_WHITEOUT RE_DUP_MAX RTSIG_MAX SCHAR_MAX SCHAR_MIN SCHAR_WIDTH SEEK_CUR
    SEEK_DATA SEEK_END SEEK_HOLE SEEK_SET SEM_VALUE_MAX SHRT_MAX SHRT_MIN SHRT_WIDTH SIG_ATOMIC_MAX
    SIG_ATOMIC_MIN SIG_ATOMIC_WIDTH SIZE_MAX SIZE_WIDTH SNAN SNANF SNANF128 SNANF32 SNANF32X SNANF64
    SNANF64X SNANL SSIZE_MAX TMP_MAX TTY_NAME_MAX UCHAR_MAX UCHAR_WIDTH UINT16_C UINT16_MAX
    UINT16_WIDTH UINT32_C UINT32_MAX UINT32_WIDTH UINT64_C UINT64_MAX UINT64_WIDTH UINT8_C UINT8_MAX
    UINT8_WIDTH UINTMAX_C UINTMAX_MAX UINTMAX_WIDTH UINTPTR_MAX UINTPTR_WIDTH UINT_FAST16_MAX
    UINT_FAST16_WIDTH UINT_FAST32_MAX UINT_FAST32_WIDTH UINT_FAST64_MAX UINT_FAST64_WIDTH
    UINT_FAST8_MAX UINT_FAST8_WIDTH UINT_LEAST16_MAX UINT_LEAST16_WIDTH UINT_LEAST32_MAX
    UINT_LEAST32_WIDTH UINT_LEAST64_MAX UINT_LEAST64_WIDTH UINT_LEAST8_MAX UINT_LEAST8_WIDTH
    UINT_MAX UINT_WIDTH ULLONG_MAX ULLONG_WIDTH ULONG_LONG_MAX ULONG_MAX ULONG_WIDTH USHRT_MAX
    USHRT_WIDTH WCHAR_MAX WCHAR_MIN WCHAR_WIDTH WCONTINUED WEXITED WEXITSTATUS WIFCONTINUED
    WIFEXITED WIFSIGNALED WIFSTOPPED WINT_MAX WINT_MIN WINT_WIDTH WNOHANG WNOWAIT WORD_BIT WSTOPPED
    WSTOPSIG WTERMSIG WUNTRACED XATTR_LIST_MAX XATTR_NAME_MAX XATTR_SIZE_MAX alignas alignof alloca
    apollo assert assert_perror be16toh be32toh be64toh bool errno false fpclassify hp9000 hppa
    htobe16 htobe32 htobe64 htole16 htole32 htole64 i386 i486 i586 i686 ibm032 interdata iscanonical
    iseqsig isfinite isgreater isgreaterequal isinf isless islessequal islessgreater isnan isnormal
    issignaling issubnormal isunordered iszero le16toh le32toh le64toh linux m68k math_errhandling
    mc68000 mips ns32000 offsetof pdp11 pyr sequent signbit sparc static_assert stderr stdin stdout
    strdupa strndupa sun tahoe true u3b15 u3b2 u3b20d u3b5 ultrix unix va_arg va_copy va_end
    va_start vax
""".split())

# Types, functions, variables and enum constants declared at file scope.
FILE_SCOPE = frozenset("""
    FILE abort abs acos acosf acosf32 acosf32x acosf64 acosf64x acosh acoshf acoshf32 acoshf32x
    acoshf64 acoshf64x acoshl acosl aligned_alloc asin asinf asinf32 asinf32x asinf64 asinf64x asinh
    asinhf asinhf32 asinhf32x asinhf64 asinhf64x asinhl asinl asprintf atan atan2 atan2f atan2f32
    atan2f32x atan2f64 atan2f64x atan2l atanf atanf32 atanf32x atanf64 atanf64x atanh atanhf
    atanhf32 atanhf32x atanhf64 atanhf64x atanhl atanl bcmp blkcnt64_t blkcnt_t blksize_t bzero
    caddr_t calloc canonicalizef canonicalizef32 canonicalizef32x canonicalizef64 canonicalizef64x
    canonicalizel cbrt cbrtf cbrtf32 cbrtf32x cbrtf64 cbrtf64x cbrtl ceil ceilf ceilf32 ceilf32x
    ceilf64 ceilf64x ceill clock_t clockid_t comparison_fn_t cookie_close_function_t
    cookie_io_functions_t cookie_read_function_t cookie_seek_function_t cookie_write_function_t
    copysign copysignf copysignf32 copysignf32x copysignf64 copysignf64x copysignl cos cosf cosf32
    cosf32x cosf64 cosf64x cosh coshf coshf32 coshf32x coshf64 coshf64x coshl cosl cuserid daddl
    daddr_t ddivl dev_t dfmal div div_t dmull double_t dprintf drand48_data dremf dreml dsqrtl dsubl
    erf erfc erfcf erfcf32 erfcf32x erfcf64 erfcf64x erfcl erff erff32 erff32x erff64 erff64x erfl
    error_t exit exp exp10f exp10f32 exp10f32x exp10f64 exp10f64x exp10l exp2 exp2f exp2f32 exp2f32x
    exp2f64 exp2f64x exp2l expf expf32 expf32x expf64 expf64x expl expm1 expm1f expm1f32 expm1f32x
    expm1f64 expm1f64x expm1l f32addf32x f32addf64 f32addf64x f32divf32x f32divf64 f32divf64x
    f32fmaf32x f32fmaf64 f32fmaf64x f32mulf32x f32mulf64 f32mulf64x f32sqrtf32x f32sqrtf64
    f32sqrtf64x f32subf32x f32subf64 f32subf64x f32xaddf64 f32xaddf64x f32xdivf64 f32xdivf64x
    f32xfmaf64 f32xfmaf64x f32xmulf64 f32xmulf64x f32xsqrtf64 f32xsqrtf64x f32xsubf64 f32xsubf64x
    f64addf64x f64divf64x f64fmaf64x f64mulf64x f64sqrtf64x f64subf64x fabs fabsf fabsf32 fabsf32x
    fabsf64 fabsf64x fabsl fadd faddl fclose fcloseall fd_mask fd_set fdim fdimf fdimf32 fdimf32x
    fdimf64 fdimf64x fdiml fdiv fdivl fflush fflush_unlocked ffma ffmal fgetc fgetc_unlocked fgetpos
    fgetpos64 fgets fgets_unlocked finite finitef finitel float_t floor floorf floorf32 floorf32x
    floorf64 floorf64x floorl fma fmaf fmaf32 fmaf32x fmaf64 fmaf64x fmal fmax fmaxf fmaxf32
    fmaxf32x fmaxf64 fmaxf64x fmaximum_mag_numf fmaximum_mag_numf32 fmaximum_mag_numf32x
    fmaximum_mag_numf64 fmaximum_mag_numf64x fmaximum_mag_numl fmaximum_magf fmaximum_magf32
    fmaximum_magf32x fmaximum_magf64 fmaximum_magf64x fmaximum_magl fmaximum_numf fmaximum_numf32
    fmaximum_numf32x fmaximum_numf64 fmaximum_numf64x fmaximum_numl fmaximumf fmaximumf32
    fmaximumf32x fmaximumf64 fmaximumf64x fmaximuml fmaxl fmaxmagf fmaxmagf32 fmaxmagf32x fmaxmagf64
    fmaxmagf64x fmaxmagl fmin fminf fminf32 fminf32x fminf64 fminf64x fminimum_mag_numf
    fminimum_mag_numf32 fminimum_mag_numf32x fminimum_mag_numf64 fminimum_mag_numf64x
    fminimum_mag_numl fminimum_magf fminimum_magf32 fminimum_magf32x fminimum_magf64
    fminimum_magf64x fminimum_magl fminimum_numf fminimum_numf32 fminimum_numf32x fminimum_numf64
    fminimum_numf64x fminimum_numl fminimumf fminimumf32 fminimumf32x fminimumf64 fminimumf64x
    fminimuml fminl fminmagf fminmagf32 fminmagf32x fminmagf64 fminmagf64x fminmagl fmod fmodf
    fmodf32 fmodf32x fmodf64 fmodf64x fmodl fmul fmull fopen fpos64_t fpos_t fprintf fputc
    fputc_unlocked fputs fputs_unlocked fread fread_unlocked free freopen freopen64 frexp frexpf
    frexpf32 frexpf32x frexpf64 frexpf64x frexpl fromfpf fromfpf32 fromfpf32x fromfpf64 fromfpf64x
    fromfpl fromfpxf fromfpxf32 fromfpxf32x fromfpxf64 fromfpxf64x fromfpxl fsblkcnt64_t fsblkcnt_t
    fscanf fseek fseeko fseeko64 fsetpos fsetpos64 fsfilcnt64_t fsfilcnt_t fsid_t fsqrt fsqrtl fsub
    fsubl ftell ftello ftello64 fwrite fwrite_unlocked gammaf gammal getc getc_unlocked getchar
    getchar_unlocked getdelim getline getpayloadf getpayloadf32 getpayloadf32x getpayloadf64
    getpayloadf64x getpayloadl getpt getw gid_t hypot hypotf hypotf32 hypotf32x hypotf64 hypotf64x
    hypotl id_t ilogb ilogbf ilogbf32 ilogbf32x ilogbf64 ilogbf64x ilogbl index ino64_t ino_t
    int16_t int32_t int64_t int8_t int_fast16_t int_fast32_t int_fast64_t int_fast8_t int_least16_t
    int_least32_t int_least64_t int_least8_t intmax_t intptr_t isinff isinfl isnanf isnanl j0f j0f32
    j0f32x j0f64 j0f64x j0l j1f j1f32 j1f32x j1f64 j1f64x j1l jnf jnf32 jnf32x jnf64 jnf64x jnl
    key_t labs ldexp ldexpf ldexpf32 ldexpf32x ldexpf64 ldexpf64x ldexpl ldiv ldiv_t lgamma lgamma_r
    lgammaf lgammaf32 lgammaf32_r lgammaf32x lgammaf32x_r lgammaf64 lgammaf64_r lgammaf64x
    lgammaf64x_r lgammaf_r lgammal lgammal_r llabs lldiv lldiv_t llogbf llogbf32 llogbf32x llogbf64
    llogbf64x llogbl llrint llrintf llrintf32 llrintf32x llrintf64 llrintf64x llrintl llround
    llroundf llroundf32 llroundf32x llroundf64 llroundf64x llroundl locale_t loff_t log log10 log10f
    log10f32 log10f32x log10f64 log10f64x log10l log1p log1pf log1pf32 log1pf32x log1pf64 log1pf64x
    log1pl log2 log2f log2f32 log2f32x log2f64 log2f64x log2l logb logbf logbf32 logbf32x logbf64
    logbf64x logbl logf logf32 logf32x logf64 logf64x logl lrint lrintf lrintf32 lrintf32x lrintf64
    lrintf64x lrintl lround lroundf lroundf32 lroundf32x lroundf64 lroundf64x lroundl malloc
    max_align_t memccpy memchr memcmp memcpy memmove mempcpy memset mode_t modf modff modff32
    modff32x modff64 modff64x modfl nan nanf nanf32 nanf32x nanf64 nanf64x nanl nearbyint nearbyintf
    nearbyintf32 nearbyintf32x nearbyintf64 nearbyintf64x nearbyintl nextafter nextafterf
    nextafterf32 nextafterf32x nextafterf64 nextafterf64x nextafterl nextdownf nextdownf32
    nextdownf32x nextdownf64 nextdownf64x nextdownl nexttoward nexttowardf nexttowardl nextupf
    nextupf32 nextupf32x nextupf64 nextupf64x nextupl nlink_t obstack obstack_printf obstack_vprintf
    off64_t off_t pclose perror pid_t posix_openpt pow powf powf32 powf32x powf64 powf64x powl
    printf program_invocation_name program_invocation_short_name pselect pthread_attr_t
    pthread_barrier_t pthread_barrierattr_t pthread_cond_t pthread_condattr_t pthread_key_t
    pthread_mutex_t pthread_mutexattr_t pthread_once_t pthread_rwlock_t pthread_rwlockattr_t
    pthread_spinlock_t pthread_t ptrdiff_t putc putc_unlocked putchar putchar_unlocked puts putw
    quad_t quick_exit random_data realloc register_t remainder remainderf remainderf32 remainderf32x
    remainderf64 remainderf64x remainderl remquo remquof remquof32 remquof32x remquof64 remquof64x
    remquol rewind rindex rint rintf rintf32 rintf32x rintf64 rintf64x rintl round roundevenf
    roundevenf32 roundevenf32x roundevenf64 roundevenf64x roundevenl roundf roundf32 roundf32x
    roundf64 roundf64x roundl scalbf scalbl scalbln scalblnf scalblnf32 scalblnf32x scalblnf64
    scalblnf64x scalblnl scalbn scalbnf scalbnf32 scalbnf32x scalbnf64 scalbnf64x scalbnl scanf
    select setpayloadf setpayloadf32 setpayloadf32x setpayloadf64 setpayloadf64x setpayloadl
    setpayloadsigf setpayloadsigf32 setpayloadsigf32x setpayloadsigf64 setpayloadsigf64x
    setpayloadsigl signgam significandf significandl sigset_t sin sincosf sincosf32 sincosf32x
    sincosf64 sincosf64x sincosl sinf sinf32 sinf32x sinf64 sinf64x sinh sinhf sinhf32 sinhf32x
    sinhf64 sinhf64x sinhl sinl size_t snprintf sprintf sqrt sqrtf sqrtf32 sqrtf32x sqrtf64 sqrtf64x
    sqrtl sscanf ssize_t stpcpy stpncpy strcasecmp strcat strchr strcmp strcpy strcspn strdup
    strerror strlen strncasecmp strncat strncmp strncpy strndup strpbrk strrchr strspn strstr strtod
    strtof strtok strtol strtold strtoll strtoul strtoull strxfrm suseconds_t system tan tanf tanf32
    tanf32x tanf64 tanf64x tanh tanhf tanhf32 tanhf32x tanhf64 tanhf64x tanhl tanl tgamma tgammaf
    tgammaf32 tgammaf32x tgammaf64 tgammaf64x tgammal time_t timer_t timespec timeval totalorderf
    totalorderf32 totalorderf32x totalorderf64 totalorderf64x totalorderl totalordermagf
    totalordermagf32 totalordermagf32x totalordermagf64 totalordermagf64x totalordermagl trunc
    truncf truncf32 truncf32x truncf64 truncf64x truncl u_char u_int u_int16_t u_int32_t u_int64_t
    u_int8_t u_long u_quad_t u_short ufromfpf ufromfpf32 ufromfpf32x ufromfpf64 ufromfpf64x ufromfpl
    ufromfpxf ufromfpxf32 ufromfpxf32x ufromfpxf64 ufromfpxf64x ufromfpxl uid_t uint uint16_t
    uint32_t uint64_t uint8_t uint_fast16_t uint_fast32_t uint_fast64_t uint_fast8_t uint_least16_t
    uint_least32_t uint_least64_t uint_least8_t uintmax_t uintptr_t ulong ungetc useconds_t ushort
    usr va_list vasprintf vdprintf vfprintf vfscanf vprintf vscanf vsnprintf vsprintf vsscanf
    wchar_t y0f y0f32 y0f32x y0f64 y0f64x y0l y1f y1f32 y1f32x y1f64 y1f64x y1l ynf ynf32 ynf32x
    ynf64 ynf64x ynl
""".split())

# Headers: a world may not be named so that `<world>.h` is one of these.
HEADERS = frozenset("""
    alloca assert complex ctype dirent dlfcn errno fcntl fenv float getopt glob inttypes iso646
    limits locale malloc math memory poll pthread sched search semaphore setjmp signal stdalign
    stdarg stdatomic stdbit stdbool stdckdint stddef stdint stdio stdlib stdnoreturn string strings
    syslog termios tgmath threads time uchar unistd utime wchar wctype
""".split())

