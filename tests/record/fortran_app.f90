! SPDX-License-Identifier: BSD-3-Clause
! The Fortran example: a main loop of 30 iterations marked as a region,
! with a user counter of the cells updated, and the grid named as a data
! object.  Also the test of the Fortran bindings (tests/record/fortran.sh).
program fortran_app
    use, intrinsic :: iso_c_binding, only: c_int64_t, c_loc
    use tracefold
    implicit none
    integer, parameter :: n = 200000
    real(8), allocatable, target :: grid(:)
    integer :: it, i, cells
    allocate(grid(n + 1))
    grid = 1.0d0
    cells = tracefold_counter_define("cells")
    call tracefold_memory_region("grid", c_loc(grid(1)), c_loc(grid(n + 1)))
    do it = 1, 30
        call tracefold_region_begin("timestep")
        do i = 2, n
            grid(i) = 0.5d0 * (grid(i) + grid(i - 1))
        end do
        call tracefold_counter_add(cells, int(n - 1, c_int64_t))
        call tracefold_region_end("timestep")
    end do
    call tracefold_event(7, int(it, c_int64_t))
    print '(a, f10.6)', 'fortran_app: ', grid(n)
end program fortran_app
