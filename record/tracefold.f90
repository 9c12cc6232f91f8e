! SPDX-License-Identifier: BSD-3-Clause
! Fortran bindings of the tracefold recorder API (tracefold.h), through
! iso_c_binding.  Installed as source next to tracefold.h, because compiled
! module files are specific to one compiler and version: compile it with the
! application, e.g.
!   gfortran -c $(pkg-config --variable=includedir tracefold)/tracefold.f90
!   gfortran app.f90 tracefold.o $(pkg-config --libs tracefold)
! Names are Fortran strings (trailing blanks are ignored; a name is cut
! after name_max characters).
module tracefold
    use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_char, c_ptr, &
                                           c_null_char
    implicit none
    private
    public :: tracefold_init, tracefold_fini, tracefold_region_begin, tracefold_region_end, &
              tracefold_event, tracefold_counter_define, tracefold_counter_add, &
              tracefold_memory_region, tracefold_flush

    interface
        function c_init() bind(c, name="tracefold_init") result(rc)
            import :: c_int
            integer(c_int) :: rc
        end function
        subroutine c_fini() bind(c, name="tracefold_fini")
        end subroutine
        subroutine c_region_begin(name) bind(c, name="tracefold_region_begin")
            import :: c_char
            character(kind=c_char), dimension(*), intent(in) :: name
        end subroutine
        subroutine c_region_end(name) bind(c, name="tracefold_region_end")
            import :: c_char
            character(kind=c_char), dimension(*), intent(in) :: name
        end subroutine
        subroutine c_event(type, value) bind(c, name="tracefold_event")
            import :: c_int32_t, c_int64_t
            integer(c_int32_t), value :: type
            integer(c_int64_t), value :: value
        end subroutine
        function c_counter_define(name) bind(c, name="tracefold_counter_define") result(id)
            import :: c_int, c_char
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int) :: id
        end function
        subroutine c_counter_add(id, delta) bind(c, name="tracefold_counter_add")
            import :: c_int, c_int64_t
            integer(c_int), value :: id
            integer(c_int64_t), value :: delta
        end subroutine
        subroutine c_memory_region(name, begin, end) bind(c, name="tracefold_memory_region")
            import :: c_char, c_ptr
            character(kind=c_char), dimension(*), intent(in) :: name
            type(c_ptr), value :: begin, end
        end subroutine
        subroutine c_flush() bind(c, name="tracefold_flush")
        end subroutine
    end interface

    !> Region, counter and object names are identifiers, far shorter.
    integer, parameter :: name_max = 255

contains

    !> name without its trailing blanks and NUL-terminated, copied by hand
    !> into the caller's buffer: a call then allocates nothing and runs no
    !> library code (trim(name) // c_null_char makes a temporary on the
    !> program's heap, which the recorder would log as the program's
    !> allocation, and calls the Fortran runtime).
    pure subroutine tracefold_c_string(name, buf)
        character(len=*), intent(in) :: name
        character(kind=c_char), intent(out) :: buf(name_max + 1)
        integer :: n, i
        n = len(name)
        ! by code (32, a blank): gfortran compares characters through its
        ! runtime's _gfortran_string_len_trim, one call per character
        do while (n > 0)
            if (iachar(name(n:n)) /= 32) exit
            n = n - 1
        end do
        n = min(n, name_max)
        do i = 1, n
            buf(i) = name(i:i)
        end do
        buf(n + 1) = c_null_char
    end subroutine

    !> 0 when recording, -1 when the recorder is disabled.
    integer function tracefold_init()
        tracefold_init = int(c_init())
    end function

    subroutine tracefold_fini()
        call c_fini()
    end subroutine

    subroutine tracefold_region_begin(name)
        character(len=*), intent(in) :: name
        character(kind=c_char) :: buf(name_max + 1)
        call tracefold_c_string(name, buf)
        call c_region_begin(buf)
    end subroutine

    subroutine tracefold_region_end(name)
        character(len=*), intent(in) :: name
        character(kind=c_char) :: buf(name_max + 1)
        call tracefold_c_string(name, buf)
        call c_region_end(buf)
    end subroutine

    subroutine tracefold_event(type, value)
        integer, intent(in) :: type
        integer(c_int64_t), intent(in) :: value
        call c_event(int(type, c_int32_t), value)
    end subroutine

    !> The counter's id, or -1 (see tracefold.h).
    integer function tracefold_counter_define(name)
        character(len=*), intent(in) :: name
        character(kind=c_char) :: buf(name_max + 1)
        call tracefold_c_string(name, buf)
        tracefold_counter_define = int(c_counter_define(buf))
    end function

    subroutine tracefold_counter_add(id, delta)
        integer, intent(in) :: id
        integer(c_int64_t), intent(in) :: delta
        call c_counter_add(int(id, c_int), delta)
    end subroutine

    !> Names [begin, end) as one data object; pass c_loc of the first element
    !> and of one past the last.
    subroutine tracefold_memory_region(name, begin, end)
        character(len=*), intent(in) :: name
        type(c_ptr), intent(in) :: begin, end
        character(kind=c_char) :: buf(name_max + 1)
        call tracefold_c_string(name, buf)
        call c_memory_region(buf, begin, end)
    end subroutine

    subroutine tracefold_flush()
        call c_flush()
    end subroutine

end module tracefold
