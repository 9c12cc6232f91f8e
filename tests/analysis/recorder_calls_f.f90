! SPDX-License-Identifier: BSD-3-Clause
! The Fortran twin of recorder_calls_app.c: an iteration spent mostly in
! calls of the tracefold module, whose procedures the compiler puts into
! this program (not into libtracefold).  recorder_frames.sh checks that
! their samples go to the caller, mark_steps, at the line of the call.
! The name is a blank-padded variable, as Fortran programs keep names:
! the module's procedure spends each call finding its end, in its own
! code, with two records per call only.
! Arguments: iterations, calls per iteration.
module recorder_calls_f_steps
    implicit none
contains
    subroutine mark_steps(calls)
        use tracefold
        integer, intent(in) :: calls
        character(len=4000) :: step
        integer :: i
        step = "step of the relaxation"
        do i = 1, calls
            call tracefold_region_begin(step)  ! the-call
            call tracefold_region_end(step)  ! the-call
        end do
    end subroutine
end module

program recorder_calls_f
    use tracefold
    use recorder_calls_f_steps
    implicit none
    integer :: it, iterations, calls
    character(len=32) :: arg
    iterations = 20
    calls = 2000
    if (command_argument_count() > 0) then
        call get_command_argument(1, arg)
        read (arg, *) iterations
    end if
    if (command_argument_count() > 1) then
        call get_command_argument(2, arg)
        read (arg, *) calls
    end if
    do it = 1, iterations
        call tracefold_region_begin("iteration")
        call mark_steps(calls)
        call tracefold_region_end("iteration")
    end do
end program
