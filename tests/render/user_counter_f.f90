! SPDX-License-Identifier: BSD-3-Clause
! The Fortran twin of user_counter_app.c: a user counter added once per
! iteration, after the loop body.  Argument: the number of steps.
program user_counter_app
    use, intrinsic :: iso_c_binding, only: c_int64_t
    use tracefold
    implicit none
    integer, parameter :: n = 200000
    real(8) :: grid(n)
    integer :: step, steps, i, cells
    character(len=32) :: arg
    steps = 300
    if (command_argument_count() > 0) then
        call get_command_argument(1, arg)
        read (arg, *) steps
    end if
    grid = 0.0d0
    cells = tracefold_counter_define("cells")
    do step = 1, steps
        call tracefold_region_begin("step")
        do i = 2, n
            grid(i) = 0.5d0 * (grid(i) + grid(i - 1)) + 1.0d-9
        end do
        call tracefold_counter_add(cells, int(n - 1, c_int64_t))
        call tracefold_region_end("step")
    end do
    print *, grid(n)
end program user_counter_app
