* A staff schedule: four people, six shifts (Monday to Wednesday, day and night);
* minimize the wage cost. x_<person>_<shift> = 1 when the person works the shift;
* cover_<shift>: the people a shift needs; max_shifts_<person>: at most three shifts.
OBJSENSE
 MIN
NAME          staff_schedule
ROWS
 N  wage_cost
 G  cover_mon_day
 G  cover_mon_night
 G  cover_tue_day
 G  cover_tue_night
 G  cover_wed_day
 G  cover_wed_night
 L  max_shifts_ada
 L  max_shifts_ben
 L  max_shifts_cleo
 L  max_shifts_dev
COLUMNS
    MARK      'MARKER'                 'INTORG'
    x_ada_mon_day  cover_mon_day   1.000000000000e+00
    x_ada_mon_day  max_shifts_ada   1.000000000000e+00
    x_ada_mon_day  wage_cost   1.200000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ada_mon_night  cover_mon_night   1.000000000000e+00
    x_ada_mon_night  max_shifts_ada   1.000000000000e+00
    x_ada_mon_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ada_tue_day  cover_tue_day   1.000000000000e+00
    x_ada_tue_day  max_shifts_ada   1.000000000000e+00
    x_ada_tue_day  wage_cost   1.200000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ada_tue_night  cover_tue_night   1.000000000000e+00
    x_ada_tue_night  max_shifts_ada   1.000000000000e+00
    x_ada_tue_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ada_wed_day  cover_wed_day   1.000000000000e+00
    x_ada_wed_day  max_shifts_ada   1.000000000000e+00
    x_ada_wed_day  wage_cost   1.200000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ada_wed_night  cover_wed_night   1.000000000000e+00
    x_ada_wed_night  max_shifts_ada   1.000000000000e+00
    x_ada_wed_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ben_mon_day  cover_mon_day   1.000000000000e+00
    x_ben_mon_day  max_shifts_ben   1.000000000000e+00
    x_ben_mon_day  wage_cost   1.000000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ben_mon_night  cover_mon_night   1.000000000000e+00
    x_ben_mon_night  max_shifts_ben   1.000000000000e+00
    x_ben_mon_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ben_tue_day  cover_tue_day   1.000000000000e+00
    x_ben_tue_day  max_shifts_ben   1.000000000000e+00
    x_ben_tue_day  wage_cost   1.000000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ben_tue_night  cover_tue_night   1.000000000000e+00
    x_ben_tue_night  max_shifts_ben   1.000000000000e+00
    x_ben_tue_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ben_wed_day  cover_wed_day   1.000000000000e+00
    x_ben_wed_day  max_shifts_ben   1.000000000000e+00
    x_ben_wed_day  wage_cost   1.000000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_ben_wed_night  cover_wed_night   1.000000000000e+00
    x_ben_wed_night  max_shifts_ben   1.000000000000e+00
    x_ben_wed_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_cleo_mon_day  cover_mon_day   1.000000000000e+00
    x_cleo_mon_day  max_shifts_cleo   1.000000000000e+00
    x_cleo_mon_day  wage_cost   1.100000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_cleo_mon_night  cover_mon_night   1.000000000000e+00
    x_cleo_mon_night  max_shifts_cleo   1.000000000000e+00
    x_cleo_mon_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_cleo_tue_day  cover_tue_day   1.000000000000e+00
    x_cleo_tue_day  max_shifts_cleo   1.000000000000e+00
    x_cleo_tue_day  wage_cost   1.100000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_cleo_tue_night  cover_tue_night   1.000000000000e+00
    x_cleo_tue_night  max_shifts_cleo   1.000000000000e+00
    x_cleo_tue_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_cleo_wed_day  cover_wed_day   1.000000000000e+00
    x_cleo_wed_day  max_shifts_cleo   1.000000000000e+00
    x_cleo_wed_day  wage_cost   1.100000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_cleo_wed_night  cover_wed_night   1.000000000000e+00
    x_cleo_wed_night  max_shifts_cleo   1.000000000000e+00
    x_cleo_wed_night  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_dev_mon_day  cover_mon_day   1.000000000000e+00
    x_dev_mon_day  max_shifts_dev   1.000000000000e+00
    x_dev_mon_day  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_dev_mon_night  cover_mon_night   1.000000000000e+00
    x_dev_mon_night  max_shifts_dev   1.000000000000e+00
    x_dev_mon_night  wage_cost   1.700000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_dev_tue_day  cover_tue_day   1.000000000000e+00
    x_dev_tue_day  max_shifts_dev   1.000000000000e+00
    x_dev_tue_day  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_dev_tue_night  cover_tue_night   1.000000000000e+00
    x_dev_tue_night  max_shifts_dev   1.000000000000e+00
    x_dev_tue_night  wage_cost   1.700000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_dev_wed_day  cover_wed_day   1.000000000000e+00
    x_dev_wed_day  max_shifts_dev   1.000000000000e+00
    x_dev_wed_day  wage_cost   1.300000000000e+02
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_dev_wed_night  cover_wed_night   1.000000000000e+00
    x_dev_wed_night  max_shifts_dev   1.000000000000e+00
    x_dev_wed_night  wage_cost   1.700000000000e+02
    MARK      'MARKER'                 'INTEND'
RHS
    RHS       cover_mon_day   2.000000000000e+00
    RHS       cover_mon_night   1.000000000000e+00
    RHS       cover_tue_day   2.000000000000e+00
    RHS       cover_tue_night   1.000000000000e+00
    RHS       cover_wed_day   2.000000000000e+00
    RHS       cover_wed_night   1.000000000000e+00
    RHS       max_shifts_ada   3.000000000000e+00
    RHS       max_shifts_ben   3.000000000000e+00
    RHS       max_shifts_cleo   3.000000000000e+00
    RHS       max_shifts_dev   3.000000000000e+00
BOUNDS
 BV BND       x_ada_mon_day
 BV BND       x_ada_mon_night
 BV BND       x_ada_tue_day
 BV BND       x_ada_tue_night
 BV BND       x_ada_wed_day
 BV BND       x_ada_wed_night
 BV BND       x_ben_mon_day
 BV BND       x_ben_mon_night
 BV BND       x_ben_tue_day
 BV BND       x_ben_tue_night
 BV BND       x_ben_wed_day
 BV BND       x_ben_wed_night
 BV BND       x_cleo_mon_day
 BV BND       x_cleo_mon_night
 BV BND       x_cleo_tue_day
 BV BND       x_cleo_tue_night
 BV BND       x_cleo_wed_day
 BV BND       x_cleo_wed_night
 BV BND       x_dev_mon_day
 BV BND       x_dev_mon_night
 BV BND       x_dev_tue_day
 BV BND       x_dev_tue_night
 BV BND       x_dev_wed_day
 BV BND       x_dev_wed_night
ENDATA
