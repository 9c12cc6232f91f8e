! SPDX-License-Identifier: BSD-3-Clause
! Jacobi relaxation of the 2-D Laplace equation on an N x N grid, the
! textbook Fortran HPC kernel, instrumented with the tracefold module: each
! iteration (region "iteration") is a five-point sweep from u into unew
! (region "sweep", routine jacobi_sweep) and a copy back (region "copy",
! routine jacobi_copy).  A user counter "cells" counts the cells updated,
! column by column, so the fold gives the update rate inside the sweep.
! Prints its own measurements: median time per kernel and the sweep's
! million cell updates per second.
! Usage: jacobi [-n N] [-i ITERATIONS]   (defaults 1024 and 100)
! The kernels are in examples/jacobi_kernels.f90.
program jacobi
    use, intrinsic :: iso_fortran_env, only: int64, error_unit
    use jacobi_kernels
    implicit none
    integer :: n = 1024, iterations = 100, it, cells, k, nargs, status
    real(8), allocatable :: u(:, :), unew(:, :)
    real(8), allocatable :: t_sweep(:), t_copy(:)
    integer(int64) :: c0, c1, c2, rate
    character(len=32) :: arg, val

    ! Counters are defined first: the trace's counter columns are fixed at
    ! the first region, or earlier when a buffer fills (docs/recorder.md).
    cells = tracefold_counter_define("cells")
    nargs = command_argument_count()
    k = 1
    do while (k <= nargs)
        call get_command_argument(k, arg)
        select case (arg)
        case ('-h', '--help')
            print '(a)', 'Usage: jacobi [-n N] [-i ITERATIONS]'
            print '(a)', 'Jacobi relaxation on an N x N grid: regions "sweep" and "copy" inside'
            print '(a)', '"iteration", user counter "cells" (defaults: N 1024, 100 iterations).'
            stop
        case ('-n', '-i')
            if (k == nargs) call usage_error('missing value after ' // trim(arg))
            call get_command_argument(k + 1, val)
            if (arg == '-n') then
                read (val, *, iostat=status) n
                if (status /= 0 .or. n < 3) call usage_error('-n: expected a number >= 3, got ' &
                                                             // trim(val))
            else
                read (val, *, iostat=status) iterations
                if (status /= 0 .or. iterations < 1) &
                    call usage_error('-i: expected a number >= 1, got ' // trim(val))
            end if
            k = k + 2
        case default
            call usage_error('unknown argument ' // trim(arg))
        end select
    end do

    allocate (u(n, n), unew(n, n), t_sweep(iterations), t_copy(iterations))
    u = 0.0d0
    u(:, 1) = 1.0d0          ! a hot wall
    unew = u
    call system_clock(count_rate=rate)
    do it = 1, iterations
        call tracefold_region_begin("iteration")
        call system_clock(c0)
        call tracefold_region_begin("sweep")
        call jacobi_sweep(u, unew, n, cells)
        call tracefold_region_end("sweep")
        call system_clock(c1)
        call tracefold_region_begin("copy")
        call jacobi_copy(unew, u, n)
        call tracefold_region_end("copy")
        call system_clock(c2)
        call tracefold_region_end("iteration")
        t_sweep(it) = real(c1 - c0, 8) / real(rate, 8)
        t_copy(it) = real(c2 - c1, 8) / real(rate, 8)
    end do
    print '(a, i0, a, i0, a, i0, a)', 'jacobi: ', n, ' x ', n, ' grid, ', iterations, ' iterations'
    print '(a)', 'kernel     median_ms        MLUPS'
    print '(a, f12.4, f13.2)', 'sweep ', 1d3 * median(t_sweep), &
        real(n - 2, 8)**2 / median(t_sweep) / 1d6
    print '(a, f12.4)', 'copy  ', 1d3 * median(t_copy)
    print '(a, es14.6)', 'u(n/2, 2) = ', u(n / 2, 2)
contains
    subroutine usage_error(msg)
        character(len=*), intent(in) :: msg
        write (error_unit, '(a)') 'jacobi: ' // msg
        write (error_unit, '(a)') 'Usage: jacobi [-n N] [-i ITERATIONS]'
        call exit(2)     ! GNU extension: exit status 2, no STOP message
    end subroutine usage_error

    ! The median of x (x is left sorted).
    real(8) function median(x)
        real(8), intent(inout) :: x(:)
        integer :: i, j
        real(8) :: v
        do i = 2, size(x)
            v = x(i)
            j = i - 1
            do while (j >= 1)
                if (x(j) <= v) exit
                x(j + 1) = x(j)
                j = j - 1
            end do
            x(j + 1) = v
        end do
        median = x((size(x) + 1) / 2)
    end function median
end program jacobi
