import { format } from 'date-fns';

export const day = (d) => format(d, 'yyyy-MM-dd');
