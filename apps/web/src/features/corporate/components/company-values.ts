import { z } from 'zod';

/** The company's text inputs, as typed: shared by the customer's application and the admin's corporate form. */
export const companyTextValues = {
  company_name: z.string(),
  company_name_kana: z.string(),
  department: z.string(),
  postal_code: z.string(),
  address: z.string(),
  phone: z.string(),
  billing_contact_name: z.string(),
  billing_emails: z.string(),
  corporate_number: z.string(),
  registration_number: z.string(),
};
