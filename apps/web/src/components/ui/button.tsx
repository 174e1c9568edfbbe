import type { ButtonHTMLAttributes } from 'react';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

const variants: Record<Variant, string> = {
  primary: 'bg-blue-700 text-white hover:bg-blue-800 disabled:bg-gray-400 disabled:text-gray-900',
  secondary: 'border border-gray-400 bg-white text-gray-900 hover:bg-gray-50 disabled:text-gray-600',
  danger: 'bg-red-700 text-white hover:bg-red-800 disabled:bg-gray-400 disabled:text-gray-900',
  ghost: 'text-gray-800 hover:bg-gray-100 disabled:text-gray-500',
};

export function Button({ variant = 'primary', className = '', type = 'button', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return (
    <button
      type={type}
      data-variant={variant}
      className={`inline-flex min-h-11 items-center justify-center gap-2 rounded-md px-4 py-2 text-sm font-medium focus:outline-none focus:ring-2 focus:ring-blue-600 focus:ring-offset-2 disabled:cursor-not-allowed aria-disabled:cursor-wait aria-disabled:opacity-80 sm:min-h-0 ${variants[variant]} ${className}`}
      {...props}
    />
  );
}
