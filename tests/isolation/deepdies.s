# A program whose DWARF nests 1,000,000 lexical blocks inside its one function. LLVM 19 walks a
# unit's DIE tree recursively (DWARFUnit::updateAddressDieMap) when it looks up an address, and
# overflows the stack on this file: llvm-symbolizer-19 and an in-process lookup die of SIGSEGV.
# The isolation tests use it as a debug file that crashes the reader (tests/fixtures/isolation.cmake).
        .text
        .globl  main
        .type   main, @function
main:
        xorl    %eax, %eax
        ret
        .size   main, .-main
        .section .debug_abbrev,"",@progbits
        .uleb128 1              # compile unit, children
        .uleb128 0x11
        .byte   1
        .uleb128 0x03           # DW_AT_name, DW_FORM_string
        .uleb128 0x08
        .uleb128 0x11           # DW_AT_low_pc, DW_FORM_addr
        .uleb128 0x01
        .uleb128 0x12           # DW_AT_high_pc, DW_FORM_data8 (length)
        .uleb128 0x07
        .byte   0, 0
        .uleb128 2              # subprogram, children
        .uleb128 0x2e
        .byte   1
        .uleb128 0x03
        .uleb128 0x08
        .uleb128 0x11
        .uleb128 0x01
        .uleb128 0x12
        .uleb128 0x07
        .byte   0, 0
        .uleb128 3              # lexical block, children, no attributes
        .uleb128 0x0b
        .byte   1
        .byte   0, 0
        .byte   0
        .section .debug_info,"",@progbits
        .long   .Lend - .Lstart
.Lstart:
        .short  4               # DWARF 4
        .long   0               # abbrev offset
        .byte   8               # address size
        .uleb128 1
        .asciz  "deep.c"
        .quad   main
        .quad   16
        .uleb128 2
        .asciz  "main"
        .quad   main
        .quad   16
        .rept   1000000
        .uleb128 3
        .endr
        .rept   1000000
        .byte   0
        .endr
        .byte   0               # end of main's children
        .byte   0               # end of the unit's children
.Lend:
